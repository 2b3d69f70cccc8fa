-- deliveries.record_id references records (id): deleting a record (an
-- erasure, the records retention) makes SQLite look for the record's
-- deliveries, and without a whole (not partial) index leading with
-- record_id that look is a scan of every delivery, on the writer, behind
-- the saves. 0120 dropped it for the save's sake; the foreign key needs
-- it (TestEveryForeignKeyHasAnIndex).
CREATE INDEX IF NOT EXISTS deliveries_of_record ON deliveries (record_id);
