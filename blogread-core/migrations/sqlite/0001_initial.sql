-- blogread schema, SQLite dialect. Keep in step with ../postgres/0001_initial.sql.
--
-- Ids are lower-case hyphenated UUID text: with SQLite's BINARY collation their order is the
-- UUID byte order, the tie-break order of every backend. Timestamps are integer Unix seconds,
-- so that what is sorted is exactly what is shown.

CREATE TABLE projects (
    id              TEXT PRIMARY KEY NOT NULL,
    name            TEXT NOT NULL,
    site_url        TEXT,
    created_at      INTEGER NOT NULL,
    -- Bumped in the same transaction as every write that changes what the public API returns.
    content_version INTEGER NOT NULL DEFAULT 0,
    -- The number of published blogs, kept in the same transactions (the list's unfiltered
    -- total without counting 10,000 index entries per request).
    published_count INTEGER NOT NULL DEFAULT 0,
    deploy_hook_url TEXT
);

-- At most one public key per project (the primary key); found by the hash of the key.
CREATE TABLE public_keys (
    project_id TEXT PRIMARY KEY NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);

CREATE TABLE agent_keys (
    id         TEXT PRIMARY KEY NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key_hash   TEXT NOT NULL UNIQUE,
    prefix     TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX agent_keys_by_project ON agent_keys (project_id, created_at, id);

CREATE TABLE admin_tokens (
    id         TEXT PRIMARY KEY NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);
CREATE INDEX admin_tokens_by_project ON admin_tokens (project_id);

-- A blog: its working copy and, while published, its published snapshot (pub_*).
-- Column order matters in SQLite: a row is read front to back and the bodies spill into
-- overflow pages, so the small columns come first and the bodies last, the published body
-- (read by the public API) before the working one.
CREATE TABLE blogs (
    id                     TEXT PRIMARY KEY NOT NULL,
    project_id             TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    status                 TEXT NOT NULL CHECK (status IN ('draft', 'published', 'unpublished')),
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
    CHECK ((status = 'published') = (pub_slug IS NOT NULL)),
    CHECK (status <> 'published' OR (
        published_updated_at IS NOT NULL AND pub_title IS NOT NULL AND pub_excerpt IS NOT NULL
        AND pub_meta_title IS NOT NULL AND pub_meta_description IS NOT NULL
        AND pub_categories IS NOT NULL AND pub_tags IS NOT NULL AND pub_content IS NOT NULL))
);
-- Lists and the sitemap: newest first with the id tie-break. It carries the sitemap's columns
-- (and the status, which SQLite must see in the index itself to use it as covering), so that
-- the sitemap reads no table row: those sit in pages filled by the bodies.
CREATE INDEX blogs_published ON blogs (project_id, status, published_at DESC, id DESC, pub_slug, published_updated_at);
-- A single published blog by its published slug.
CREATE UNIQUE INDEX blogs_published_slug ON blogs (project_id, pub_slug) WHERE status = 'published';
-- The management list: newest created first.
CREATE INDEX blogs_by_created ON blogs (project_id, created_at DESC, id DESC);

-- Every slug a blog holds in its project: the working slug and, when different, the published
-- one. The primary key makes "a slug is unique within a project across the working and the
-- published slugs of other blogs" a constraint, so no race can break it.
CREATE TABLE blog_slugs (
    project_id TEXT NOT NULL,
    slug       TEXT NOT NULL,
    blog_id    TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, slug)
) WITHOUT ROWID;
CREATE INDEX blog_slugs_by_blog ON blog_slugs (blog_id);

-- The category keys (blogread_core::store::category_key, computed in Rust) of each published
-- snapshot, with its published_at so that a filtered page is read in index order.
CREATE TABLE blog_categories (
    blog_id      TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    project_id   TEXT NOT NULL,
    category_key TEXT NOT NULL,
    published_at INTEGER NOT NULL,
    PRIMARY KEY (blog_id, category_key)
) WITHOUT ROWID;
CREATE INDEX blog_categories_filter ON blog_categories (project_id, category_key, published_at DESC, blog_id DESC);

-- The deploy hook delivery log; seq orders it (newest first = highest seq).
CREATE TABLE deliveries (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    blog_slug    TEXT,
    attempted_at INTEGER NOT NULL,
    success      INTEGER NOT NULL,
    status_code  INTEGER NOT NULL,
    message      TEXT NOT NULL,
    duration_ms  INTEGER NOT NULL
);
CREATE INDEX deliveries_by_project ON deliveries (project_id, seq DESC);
