-- A project's stored images (docs/media.md). Keep in step with ../sqlite/0016_media.sql.
--
-- One row an item: what its files are (they are kept by the media store, named by the
-- master's SHA-256, written before the row and removed after it). A project holds at most
-- one item of given bytes: an identical upload finds the row already there. `variants` is
-- the JSON array of the smaller copies ([{"width", "height", "bytes"}], narrowest first).
CREATE TABLE media (
    id           uuid PRIMARY KEY,
    project_id   uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    sha256       text NOT NULL,
    content_type text NOT NULL,
    width        integer NOT NULL,
    height       integer NOT NULL,
    bytes        bigint NOT NULL,
    alt          text NOT NULL,
    variants     text NOT NULL,
    created_at   bigint NOT NULL,
    UNIQUE (project_id, sha256)
);
-- The media list: newest first.
CREATE INDEX media_newest ON media (project_id, created_at DESC, id DESC);
