-- The changes feed. Keep in step with ../postgres/0009_changes.sql.
--
-- Every write that changes a public answer takes the next number of its project's change
-- sequence (`change_seq`, in the transaction that bumps the content version, so a project's
-- numbers commit in order) and stamps it on every published post whose answer it changed
-- (`blogs.change_no`): the post itself and the posts whose bodies name a slug whose
-- resolution changed (found through `blog_links`). A public slug that stops being a published
-- post's is kept as a tombstone with the number of the write that lost it; tombstones older
-- than the retention are pruned, and `changes_floor` keeps the highest number pruned, below
-- which a cursor can no longer be served.
ALTER TABLE projects ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN changes_floor INTEGER NOT NULL DEFAULT 0;
ALTER TABLE blogs ADD COLUMN change_no INTEGER NOT NULL DEFAULT 0;
-- The feed reads published posts in change order; the id is the tie-break.
CREATE INDEX blogs_changes ON blogs (project_id, status, change_no, id);

CREATE TABLE blog_tombstones (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    slug       TEXT NOT NULL,
    change_no  INTEGER NOT NULL,
    lost_at    INTEGER NOT NULL,
    PRIMARY KEY (project_id, slug)
) WITHOUT ROWID;
CREATE INDEX blog_tombstones_by_change ON blog_tombstones (project_id, change_no, slug);
CREATE INDEX blog_tombstones_by_age ON blog_tombstones (lost_at);

-- Which slugs the body a post holds for the public (published or scheduled) references: the
-- slugs of its link template, or of the body itself when it has none. A write that changes
-- what a slug resolves to stamps the published posts found here.
CREATE TABLE blog_links (
    project_id TEXT NOT NULL,
    slug       TEXT NOT NULL,
    blog_id    TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, slug, blog_id)
) WITHOUT ROWID;
CREATE INDEX blog_links_by_blog ON blog_links (blog_id);

-- 0 until the server has indexed the links of the bodies stored before this migration (once,
-- at start-up), then 1.
ALTER TABLE blogread_meta ADD COLUMN links_indexed INTEGER NOT NULL DEFAULT 0;
