-- Link templates keep the body's own word count (stored form v2), and the look for bodies
-- without a template is indexed. Keep in step with
-- ../postgres/0008_template_word_counts.sql.
--
-- The templates a database holds are all of the form this number names: 1 when some may be
-- v1 (stored without a word count, by a version before counts were kept). The server gives
-- those their count once, at start-up, and then sets 2.
ALTER TABLE blogread_meta ADD COLUMN templates_version INTEGER NOT NULL DEFAULT 1;

-- The start-up look for public bodies without a template (`PENDING_TEMPLATES`) walks this
-- small index instead of every blog row: 1.1 s -> 0.05 s on 100,000 posts of 8 KB (SQLite).
CREATE INDEX blogs_with_public_body ON blogs (id) WHERE pub_content IS NOT NULL;
