-- The placeholder index keyed by small rows. Keep in step with
-- ../postgres/0014_small_placeholder_keys.sql.
--
-- `blog_placeholders` held each body's whole placeholder list (up to a few MiB for a 2 MiB
-- body) in a table without row ids, and a covering index held the list again. SQLite finds a
-- key in such a b-tree by comparing whole records, and reads the whole of a record that
-- overflows its page to compare it: indexing a body that names 24,000 distinct slugs looked
-- its own list up once per slug through the foreign key of `blog_placeholder_slugs` (10.9 s
-- holding the writer: quadratic in the body), and every look-up near a large list read it.
--
-- Now the lists live in an ordinary table, found by row id; the keys (post, copy, project, the
-- list's size and length) are in indexes of their own, where no comparison meets a list; and the
-- slug rows refer to the post, so that indexing them never looks a list up. The store removes
-- a body's slug rows itself when it lists the body again.
CREATE TABLE blog_placeholders_new (
    blog_id      TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    project_id   TEXT NOT NULL,
    copy         TEXT NOT NULL CHECK (copy IN ('working', 'published')),
    -- The size of `placeholders` in bytes (what reading the list costs) and how many
    -- placeholders it holds, both read from the index without the list.
    bytes        INTEGER NOT NULL,
    placeholder_count INTEGER NOT NULL,
    placeholders TEXT NOT NULL,
    UNIQUE (blog_id, copy)
);
INSERT INTO blog_placeholders_new (blog_id, project_id, copy, bytes, placeholder_count, placeholders)
SELECT blog_id, project_id, copy, length(CAST(placeholders AS BLOB)), json_array_length(placeholders), placeholders
FROM blog_placeholders ORDER BY project_id, blog_id, copy;

CREATE TABLE blog_placeholder_slugs_new (
    project_id TEXT NOT NULL,
    slug       TEXT NOT NULL,
    blog_id    TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    copy       TEXT NOT NULL,
    PRIMARY KEY (project_id, slug, blog_id, copy)
) WITHOUT ROWID;
INSERT INTO blog_placeholder_slugs_new (project_id, slug, blog_id, copy)
SELECT project_id, slug, blog_id, copy FROM blog_placeholder_slugs;

DROP TABLE blog_placeholder_slugs;
DROP TABLE blog_placeholders;
ALTER TABLE blog_placeholders_new RENAME TO blog_placeholders;
ALTER TABLE blog_placeholder_slugs_new RENAME TO blog_placeholder_slugs;
CREATE INDEX blog_placeholders_by_project
    ON blog_placeholders (project_id, blog_id, copy, bytes, placeholder_count);
CREATE INDEX blog_placeholder_slugs_by_body ON blog_placeholder_slugs (blog_id, copy);
