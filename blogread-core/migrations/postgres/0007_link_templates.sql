-- Link templates. Keep in step with ../sqlite/0007_link_templates.sql.
--
-- A published body compiled once, at publish, so that a public read fills in its internal
-- links instead of parsing the HTML again (`LinkTemplate::to_stored`'s form). '' when the body
-- has no placeholder or was not compiled (it is then resolved in full at read time); no row
-- when it has not been compiled yet (the server compiles those at start-up).
CREATE TABLE blog_templates (
    blog_id  uuid PRIMARY KEY REFERENCES blogs (id) ON DELETE CASCADE,
    template text NOT NULL
);
