-- Events and deliveries of type results-updated (docs/delivery.md#results-updated):
-- the new results of an assessment whose results a destination already
-- received. The CHECK of data_type on both tables lets the new type in.
-- SQLite cannot alter a CHECK, and rebuilding the two tables would copy
-- every event and delivery with the foreign keys off, which a migration's
-- transaction cannot turn off. A CHECK that allows more is the change
-- SQLite documents as safe to make by editing the schema's text
-- (https://sqlite.org/lang_altertable.html#otheralter): every stored row
-- still passes, the file's format does not change, and no index, trigger
-- or foreign key is touched. RESET makes this connection read the new
-- schema; the table made and dropped moves the schema cookie on, so every
-- other connection to the file reads it again too (RESET alone does not).
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
    SET sql = replace(sql, 'CHECK (data_type IN (''non-sensitive'', ''sensitive''))',
                           'CHECK (data_type IN (''non-sensitive'', ''sensitive'', ''results-updated''))')
    WHERE type = 'table' AND name IN ('events', 'deliveries');
PRAGMA writable_schema = RESET;
CREATE TABLE migration_0090_schema_cookie (x INTEGER);
DROP TABLE migration_0090_schema_cookie;
-- Fails the migration (its transaction rolls back) unless both CHECKs now
-- allow the new type: a schema text that differed from the one replaced
-- above would otherwise leave saves that raise an update failing later.
CREATE TEMP TABLE migration_0090_check (both_changed INTEGER CHECK (both_changed = 1));
INSERT INTO migration_0090_check SELECT count(*) = 2 FROM sqlite_schema
    WHERE type = 'table' AND name IN ('events', 'deliveries') AND sql LIKE '%''results-updated''%';
DROP TABLE migration_0090_check;
