-- The changes feed. Keep in step with ../sqlite/0009_changes.sql (which explains the scheme).
ALTER TABLE projects ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN changes_floor bigint NOT NULL DEFAULT 0;
ALTER TABLE blogs ADD COLUMN change_no bigint NOT NULL DEFAULT 0;
CREATE INDEX blogs_changes ON blogs (project_id, status, change_no, id);

CREATE TABLE blog_tombstones (
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    slug       text NOT NULL,
    change_no  bigint NOT NULL,
    lost_at    bigint NOT NULL,
    PRIMARY KEY (project_id, slug)
);
CREATE INDEX blog_tombstones_by_change ON blog_tombstones (project_id, change_no, slug);
CREATE INDEX blog_tombstones_by_age ON blog_tombstones (lost_at);

CREATE TABLE blog_links (
    project_id uuid NOT NULL,
    slug       text NOT NULL,
    blog_id    uuid NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, slug, blog_id)
);
CREATE INDEX blog_links_by_blog ON blog_links (blog_id);

ALTER TABLE blogread_meta ADD COLUMN links_indexed integer NOT NULL DEFAULT 0;
