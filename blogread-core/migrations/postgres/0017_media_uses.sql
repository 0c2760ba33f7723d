-- Which stored images each post uses (docs/media.md#usage). Keep in step with
-- ../sqlite/0017_media_uses.sql.
--
-- One row for each image a body copy of a post (its working copy, and the snapshot it holds
-- for the public: published or scheduled) names as its featured image or in an `<img src>`:
-- the image by its project and digest and the public URL it was named under (`base`, such as
-- `https://blog.example.com`; only the service's own counts when read), never by the item's
-- id, so that writing a post looks no item up and a use outlives its item being deleted and
-- uploaded again. `featured` is 1 when the copy names it as its featured image. Written in the
-- transaction that changes the post, gone with the post. Deleting an item reads it by the
-- primary key's prefix (project, digest, base); a write replaces a copy's rows by post.
CREATE TABLE media_uses (
    project_id uuid NOT NULL,
    sha256     text NOT NULL,
    base       text NOT NULL,
    blog_id    uuid NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
    copy       text NOT NULL CHECK (copy IN ('working', 'published')),
    featured   integer NOT NULL,
    PRIMARY KEY (project_id, sha256, base, blog_id, copy)
);
CREATE INDEX media_uses_by_post ON media_uses (blog_id, copy);
