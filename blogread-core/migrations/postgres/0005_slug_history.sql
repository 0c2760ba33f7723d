-- Slug history: when a re-sync publishes a new slug for a post, its previous public slug
-- becomes an alias of the post, so `[INTERNAL:old-slug]` keeps resolving and sites can emit
-- redirects. An alias is freed when another post publishes that slug (deleted in that write)
-- and when its post is deleted (the cascade).
CREATE TABLE blog_aliases (
    project_id uuid NOT NULL,
    slug       text NOT NULL,
    blog_id    uuid NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    PRIMARY KEY (project_id, slug)
);
CREATE INDEX blog_aliases_by_blog ON blog_aliases (blog_id);
CREATE INDEX blog_aliases_newest ON blog_aliases (project_id, created_at DESC, slug);
