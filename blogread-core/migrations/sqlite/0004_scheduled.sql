-- no-transaction
-- Scheduled publishing: status `scheduled` holds a snapshot (the pub_* columns) whose
-- published_at is the go-live time. SQLite cannot change a CHECK constraint in place, so the
-- table is rebuilt (SQLite's documented procedure: foreign keys off, so that dropping the old
-- table cascades nowhere; copy; rename; indexes again), in one transaction.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE blogs_new (
    id                     TEXT PRIMARY KEY NOT NULL,
    project_id             TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    status                 TEXT NOT NULL CHECK (status IN ('draft', 'published', 'unpublished', 'scheduled')),
    created_at             INTEGER NOT NULL,
    updated_at             INTEGER NOT NULL,
    -- First publication time: set while published or unpublished, NULL for drafts.
    published_at           INTEGER,
    -- Last publish (re-sync) time: set while published.
    published_updated_at   INTEGER,
    pub_title              TEXT,
    pub_slug               TEXT,
    pub_excerpt            TEXT,
    pub_meta_title         TEXT,
    pub_meta_description   TEXT,
    pub_featured_image_url TEXT,
    pub_categories         TEXT, -- JSON array of strings, in order
    pub_tags               TEXT, -- JSON array of strings, in order
    title                  TEXT NOT NULL,
    slug                   TEXT NOT NULL,
    excerpt                TEXT NOT NULL,
    meta_title             TEXT NOT NULL,
    meta_description       TEXT NOT NULL,
    featured_image_url     TEXT,
    categories             TEXT NOT NULL, -- JSON array of strings, in order
    tags                   TEXT NOT NULL, -- JSON array of strings, in order
    pub_content            TEXT,
    content                TEXT NOT NULL,
    CHECK ((status = 'draft') = (published_at IS NULL)),
    CHECK ((status IN ('published', 'scheduled')) = (pub_slug IS NOT NULL)),
    CHECK (status NOT IN ('published', 'scheduled') OR (
        published_updated_at IS NOT NULL AND pub_title IS NOT NULL AND pub_excerpt IS NOT NULL
        AND pub_meta_title IS NOT NULL AND pub_meta_description IS NOT NULL
        AND pub_categories IS NOT NULL AND pub_tags IS NOT NULL AND pub_content IS NOT NULL))
);
INSERT INTO blogs_new SELECT * FROM blogs;
DROP TABLE blogs;
ALTER TABLE blogs_new RENAME TO blogs;
-- Lists and the sitemap: newest first with the id tie-break. It carries the sitemap's columns
-- (and the status, which SQLite must see in the index itself to use it as covering), so that
-- the sitemap reads no table row: those sit in pages filled by the bodies.
CREATE INDEX blogs_published ON blogs (project_id, status, published_at DESC, id DESC, pub_slug, published_updated_at);
-- A single published blog by its published slug.
CREATE UNIQUE INDEX blogs_published_slug ON blogs (project_id, pub_slug) WHERE status = 'published';
-- The management list: newest created first.
CREATE INDEX blogs_by_created ON blogs (project_id, created_at DESC, id DESC);
-- The next go-live of a project (the public key check reads it) and the due posts.
CREATE INDEX blogs_scheduled ON blogs (project_id, published_at) WHERE status = 'scheduled';
CREATE INDEX blogs_due ON blogs (published_at) WHERE status = 'scheduled';
COMMIT;
PRAGMA foreign_keys = ON;
