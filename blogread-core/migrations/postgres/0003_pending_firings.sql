-- Deploy hook firings recorded in the transaction of the write that caused them (only for a
-- project with a hook), deleted in the transaction that records their delivery. A row that
-- is not claimed when the process starts was never attempted: it fires then, once. A row
-- claimed long ago belonged to a process that died during the POST: its outcome is unknown,
-- and it is recorded as such, not retried.
CREATE TABLE pending_firings (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind       text NOT NULL,
    blog_slug  text NOT NULL,
    created_at bigint NOT NULL,
    claimed_at bigint
);
CREATE INDEX pending_firings_unclaimed ON pending_firings (project_id) WHERE claimed_at IS NULL;
