-- The placeholder index keyed by small rows. Keep in step with
-- ../sqlite/0014_small_placeholder_keys.sql, where the lists moved out of the b-trees that
-- are searched (SQLite compared a whole overflowing list at each step of a search: indexing a
-- body naming 24,000 distinct slugs looked its own list up once per slug, through the foreign
-- key of `blog_placeholder_slugs`).
--
-- Here the lists are TOASTed apart already; what changes is the same on both: each list's size
-- and length are kept (read from the index: what reading the list costs, and how many
-- placeholders a report counts without reading it), and the slug rows refer to the
-- post rather than to the list's row, the store removing a body's slug rows itself when it
-- lists the body again.
ALTER TABLE blog_placeholders ADD COLUMN bytes bigint, ADD COLUMN placeholder_count bigint;
UPDATE blog_placeholders
SET bytes = octet_length(placeholders), placeholder_count = jsonb_array_length(placeholders::jsonb);
ALTER TABLE blog_placeholders ALTER COLUMN bytes SET NOT NULL,
    ALTER COLUMN placeholder_count SET NOT NULL;
DROP INDEX blog_placeholders_by_project;
CREATE INDEX blog_placeholders_by_project
    ON blog_placeholders (project_id, blog_id, copy, bytes, placeholder_count);

ALTER TABLE blog_placeholder_slugs DROP CONSTRAINT blog_placeholder_slugs_blog_id_copy_fkey;
ALTER TABLE blog_placeholder_slugs
    ADD FOREIGN KEY (blog_id) REFERENCES blogs (id) ON DELETE CASCADE;
