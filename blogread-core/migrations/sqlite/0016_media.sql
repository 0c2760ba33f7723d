-- A project's stored images (docs/media.md). Keep in step with ../postgres/0016_media.sql.
--
-- One row an item: what its files are (they are kept by the media store, named by the
-- master's SHA-256, written before the row and removed after it). A project holds at most
-- one item of given bytes: an identical upload finds the row already there. `variants` is
-- the JSON array of the smaller copies ([{"width", "height", "bytes"}], narrowest first).
CREATE TABLE media (
    id           TEXT PRIMARY KEY NOT NULL,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    sha256       TEXT NOT NULL,
    content_type TEXT NOT NULL,
    width        INTEGER NOT NULL,
    height       INTEGER NOT NULL,
    bytes        INTEGER NOT NULL,
    alt          TEXT NOT NULL,
    variants     TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    UNIQUE (project_id, sha256)
);
-- The media list: newest first.
CREATE INDEX media_newest ON media (project_id, created_at DESC, id DESC);
