-- A random value fixed when the database is created (or upgraded to this schema), mixed into
-- every ETag: a new database, or one that replaced another, can never answer 304 to a tag
-- that the other one issued.
CREATE TABLE blogread_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    etag_epoch TEXT NOT NULL
);
INSERT INTO blogread_meta (id, etag_epoch) VALUES (1, lower(hex(randomblob(16))));
