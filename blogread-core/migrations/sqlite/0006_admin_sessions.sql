-- Admin page sessions. Keep in step with ../postgres/0006_admin_sessions.sql.
--
-- A session is a random id kept in the browser's cookie; only its SHA-256 is stored. It stands
-- for the credential it was signed in with: a project admin token (the cascade ends its
-- sessions when the token is revoked) or the operator token (its SHA-256, compared with the
-- configured token on every use, so a changed operator token ends the operator's sessions).
CREATE TABLE admin_sessions (
    id_hash             TEXT PRIMARY KEY NOT NULL,
    admin_token_id      TEXT REFERENCES admin_tokens (id) ON DELETE CASCADE,
    project_id          TEXT REFERENCES projects (id) ON DELETE CASCADE,
    operator_token_hash TEXT,
    created_at          INTEGER NOT NULL,
    expires_at          INTEGER NOT NULL,
    CHECK ((admin_token_id IS NULL) = (operator_token_hash IS NOT NULL)),
    CHECK ((admin_token_id IS NULL) = (project_id IS NULL))
);
CREATE INDEX admin_sessions_by_token ON admin_sessions (admin_token_id);
CREATE INDEX admin_sessions_by_expiry ON admin_sessions (expires_at);
