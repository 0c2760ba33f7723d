-- blogread schema, PostgreSQL dialect. Keep in step with ../sqlite/0001_initial.sql.
--
-- Ids are uuid (compared bytewise: the tie-break order of every backend). Timestamps are
-- bigint Unix seconds, so that what is sorted is exactly what is shown.

CREATE TABLE projects (
    id              uuid PRIMARY KEY,
    name            text NOT NULL,
    site_url        text,
    created_at      bigint NOT NULL,
    -- Bumped in the same transaction as every write that changes what the public API returns.
    content_version bigint NOT NULL DEFAULT 0,
    -- The number of published blogs, kept in the same transactions (the list's unfiltered
    -- total without counting 10,000 index entries per request).
    published_count bigint NOT NULL DEFAULT 0,
    deploy_hook_url text
);

-- At most one public key per project (the primary key); found by the hash of the key.
CREATE TABLE public_keys (
    project_id uuid PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    key        text NOT NULL,
    key_hash   text NOT NULL UNIQUE,
    created_at bigint NOT NULL
);

CREATE TABLE agent_keys (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key_hash   text NOT NULL UNIQUE,
    prefix     text NOT NULL,
    created_at bigint NOT NULL
);
CREATE INDEX agent_keys_by_project ON agent_keys (project_id, created_at, id);

CREATE TABLE admin_tokens (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    token_hash text NOT NULL UNIQUE,
    created_at bigint NOT NULL
);
CREATE INDEX admin_tokens_by_project ON admin_tokens (project_id);

-- A blog: its working copy and, while published, its published snapshot (pub_*).
CREATE TABLE blogs (
    id                     uuid PRIMARY KEY,
    project_id             uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    status                 text NOT NULL CHECK (status IN ('draft', 'published', 'unpublished')),
    created_at             bigint NOT NULL,
    updated_at             bigint NOT NULL,
    -- First publication time: set while published or unpublished, NULL for drafts.
    published_at           bigint,
    -- Last publish (re-sync) time: set while published.
    published_updated_at   bigint,
    pub_title              text,
    pub_slug               text,
    pub_excerpt            text,
    pub_meta_title         text,
    pub_meta_description   text,
    pub_featured_image_url text,
    pub_categories         text, -- JSON array of strings, in order
    pub_tags               text, -- JSON array of strings, in order
    title                  text NOT NULL,
    slug                   text NOT NULL,
    excerpt                text NOT NULL,
    meta_title             text NOT NULL,
    meta_description       text NOT NULL,
    featured_image_url     text,
    categories             text NOT NULL, -- JSON array of strings, in order
    tags                   text NOT NULL, -- JSON array of strings, in order
    pub_content            text,
    content                text NOT NULL,
    CHECK ((status = 'draft') = (published_at IS NULL)),
    CHECK ((status = 'published') = (pub_slug IS NOT NULL)),
    CHECK (status <> 'published' OR (
        published_updated_at IS NOT NULL AND pub_title IS NOT NULL AND pub_excerpt IS NOT NULL
        AND pub_meta_title IS NOT NULL AND pub_meta_description IS NOT NULL
        AND pub_categories IS NOT NULL AND pub_tags IS NOT NULL AND pub_content IS NOT NULL))
);
-- Lists and the sitemap: newest first with the id tie-break, covering the sitemap's columns.
CREATE INDEX blogs_published ON blogs (project_id, published_at DESC, id DESC)
    INCLUDE (pub_slug, published_updated_at) WHERE status = 'published';
-- A single published blog by its published slug.
CREATE UNIQUE INDEX blogs_published_slug ON blogs (project_id, pub_slug) WHERE status = 'published';
-- The management list: newest created first.
CREATE INDEX blogs_by_created ON blogs (project_id, created_at DESC, id DESC);

-- Every slug a blog holds in its project: the working slug and, when different, the published
-- one. The primary key makes "a slug is unique within a project across the working and the
-- published slugs of other blogs" a constraint, so no race can break it.
CREATE TABLE blog_slugs (
    project_id uuid NOT NULL,
    slug       text NOT NULL,
    blog_id    uuid NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, slug)
);
CREATE INDEX blog_slugs_by_blog ON blog_slugs (blog_id);

-- The category keys (blogread_core::store::category_key, computed in Rust) of each published
-- snapshot, with its published_at so that a filtered page is read in index order.
CREATE TABLE blog_categories (
    blog_id      uuid NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    project_id   uuid NOT NULL,
    category_key text NOT NULL,
    published_at bigint NOT NULL,
    PRIMARY KEY (blog_id, category_key)
);
CREATE INDEX blog_categories_filter ON blog_categories (project_id, category_key, published_at DESC, blog_id DESC);

-- The deploy hook delivery log; seq orders it (newest first = highest seq).
CREATE TABLE deliveries (
    seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           uuid NOT NULL UNIQUE,
    project_id   uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind         text NOT NULL,
    blog_slug    text,
    attempted_at bigint NOT NULL,
    success      boolean NOT NULL,
    status_code  integer NOT NULL,
    message      text NOT NULL,
    duration_ms  bigint NOT NULL
);
CREATE INDEX deliveries_by_project ON deliveries (project_id, seq DESC);
