-- A restored database is another database to every cursor and ETag issued before the restore.
--
-- `pg_dump` copies `blogread_meta` with its ETag epoch, and a restore (`pg_restore`, or `psql`
-- of a plain dump) brings it back with the rest. But a restore creates every table anew, and a
-- new table gets a new object id: the store keeps the id of `blogread_meta` beside the epoch,
-- and at start-up, when the two differ, the table was made by a restore, so the epoch is drawn
-- again (`SqlStore::start_up`). (SQLite copies are marked by `blogread-server backup` instead.)
ALTER TABLE blogread_meta ADD COLUMN meta_oid oid;
UPDATE blogread_meta SET meta_oid = 'blogread_meta'::regclass;
