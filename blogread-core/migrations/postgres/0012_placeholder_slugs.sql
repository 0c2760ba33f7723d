-- Which slugs each body's placeholders name. Keep in step with
-- ../sqlite/0012_placeholder_slugs.sql.
--
-- One row for each distinct slug a body's placeholders name (the slug as the stored list
-- holds it, trimmed and lower-cased; '' for a malformed placeholder, which names none),
-- written with the body's `blog_placeholders` row and gone with it. The links report reads
-- the project's distinct slugs from here, judges each once, and reads only the bodies that
-- name a slug that does not resolve; the backlinks of a post read only the bodies that name
-- one of its slugs.
CREATE TABLE blog_placeholder_slugs (
    project_id uuid NOT NULL,
    slug       text NOT NULL,
    blog_id    uuid NOT NULL,
    copy       text NOT NULL,
    PRIMARY KEY (project_id, slug, blog_id, copy),
    FOREIGN KEY (blog_id, copy) REFERENCES blog_placeholders (blog_id, copy) ON DELETE CASCADE
);
CREATE INDEX blog_placeholder_slugs_by_body ON blog_placeholder_slugs (blog_id, copy);

-- The bodies indexed before this table existed. The bodies stored before
-- `blog_placeholders` existed are indexed at start-up, with their slugs.
INSERT INTO blog_placeholder_slugs (project_id, slug, blog_id, copy)
SELECT DISTINCT p.project_id, COALESCE(e.value ->> 1, ''), p.blog_id, p.copy
FROM blog_placeholders p CROSS JOIN LATERAL jsonb_array_elements(p.placeholders::jsonb) e;
