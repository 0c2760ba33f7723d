-- The links report. Keep in step with ../postgres/0010_link_reports.sql.
--
-- The placeholders of each body a post holds (its working copy, and the snapshot it holds for
-- the public: published or scheduled) as `links::report::placeholders` lists them, in its
-- stored form: where each stands and the slug it names, not the state of its target, which
-- the report reads at request time. No row for a body without placeholders. Written in the
-- transaction that changes the body; the bodies stored before this table existed are indexed
-- once, at start-up (`blogread_meta.placeholders_indexed`).
CREATE TABLE blog_placeholders (
    blog_id      TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    project_id   TEXT NOT NULL,
    copy         TEXT NOT NULL CHECK (copy IN ('working', 'published')),
    placeholders TEXT NOT NULL,
    PRIMARY KEY (blog_id, copy)
) WITHOUT ROWID;
CREATE INDEX blog_placeholders_by_project ON blog_placeholders (project_id);

ALTER TABLE blogread_meta ADD COLUMN placeholders_indexed INTEGER NOT NULL DEFAULT 0;
