-- Covering indexes of the posts' keys (id and change number). Keep in step with
-- ../postgres/0013_post_keys.sql.
--
-- A public read that the per-post fragment cache answers reads only the keys of what it
-- answers: the page's posts in list order, or the post with a slug, each with its change
-- number (see docs/operations.md#fragment-cache). The change number is the last column of
-- `blogs`, after both bodies, so reading it from the table walks every overflow page of the
-- row; these indexes hold it beside what the reads search by, so that no body is touched.

-- Lists and the sitemap, now with the change number.
DROP INDEX blogs_published;
CREATE INDEX blogs_published ON blogs (project_id, status, published_at DESC, id DESC, pub_slug, published_updated_at, change_no);
-- A published post's key by its published slug.
-- (The status is in it too, so that it covers the read: SQLite does not take it from the
-- index's condition.)
CREATE INDEX blogs_published_slug_key ON blogs (project_id, pub_slug, status, id, change_no) WHERE status = 'published';
-- A post's change number by its id (a category page's keys, and the change number read
-- beside the posts a read fills).
CREATE INDEX blogs_change_key ON blogs (id, change_no);
