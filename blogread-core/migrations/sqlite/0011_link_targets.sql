-- What the links report reads, indexed so that it reads no table row. Keep in step with
-- ../postgres/0011_link_targets.sql.
--
-- The report reads every post of a project as a link target, and every placeholder list of
-- the project's bodies. Both come from covering indexes, each read as one range: the posts'
-- rows sit in pages filled by the bodies, and the lists' rows are keyed by post.
CREATE INDEX blogs_link_targets ON blogs (project_id, id, status, slug, title, pub_slug, pub_title, published_at);
DROP INDEX blog_placeholders_by_project;
CREATE INDEX blog_placeholders_by_project ON blog_placeholders (project_id, blog_id, copy, placeholders);
