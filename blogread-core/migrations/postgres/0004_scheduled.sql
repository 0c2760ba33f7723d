-- Scheduled publishing: status `scheduled` holds a snapshot (the pub_* columns) whose
-- published_at is the go-live time. The CHECK constraints of 0001 were unnamed: drop them by
-- what the catalogue says and add them again, named, with the new status.
DO $$
DECLARE c record;
BEGIN
    FOR c IN SELECT conname FROM pg_constraint
             WHERE conrelid = 'blogs'::regclass AND contype = 'c' LOOP
        EXECUTE format('ALTER TABLE blogs DROP CONSTRAINT %I', c.conname);
    END LOOP;
END $$;
ALTER TABLE blogs
    ADD CONSTRAINT blogs_status CHECK (status IN ('draft', 'published', 'unpublished', 'scheduled')),
    ADD CONSTRAINT blogs_published_at CHECK ((status = 'draft') = (published_at IS NULL)),
    ADD CONSTRAINT blogs_snapshot CHECK ((status IN ('published', 'scheduled')) = (pub_slug IS NOT NULL)),
    ADD CONSTRAINT blogs_snapshot_complete CHECK (status NOT IN ('published', 'scheduled') OR (
        published_updated_at IS NOT NULL AND pub_title IS NOT NULL AND pub_excerpt IS NOT NULL
        AND pub_meta_title IS NOT NULL AND pub_meta_description IS NOT NULL
        AND pub_categories IS NOT NULL AND pub_tags IS NOT NULL AND pub_content IS NOT NULL));
-- The next go-live of a project (the public key check reads it) and the due posts.
CREATE INDEX blogs_scheduled ON blogs (project_id, published_at) WHERE status = 'scheduled';
CREATE INDEX blogs_due ON blogs (published_at) WHERE status = 'scheduled';
