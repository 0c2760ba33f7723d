-- What the links report reads, indexed so that it reads no table row where it can. Keep in
-- step with ../sqlite/0011_link_targets.sql.
--
-- The report reads every post of a project as a link target (an index-only scan, which
-- leaves the rows and their TOASTed bodies alone), and every placeholder list of the
-- project's bodies (by project, in post order; the lists stay out of the index, whose
-- entries PostgreSQL caps at about 2.7 kB).
CREATE INDEX blogs_link_targets ON blogs (project_id, id)
    INCLUDE (status, slug, title, pub_slug, pub_title, published_at);
DROP INDEX blog_placeholders_by_project;
CREATE INDEX blog_placeholders_by_project ON blog_placeholders (project_id, blog_id, copy);
