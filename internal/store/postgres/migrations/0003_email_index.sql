-- The email index without updated_at: an update that keeps its email then
-- changes no indexed column, so PostgreSQL updates the row in place (a
-- heap-only tuple) and writes no index. Rule 3's "most recently updated"
-- sorts the few records that share an email after the index finds them.
DROP INDEX records_by_email;
CREATE INDEX records_by_email ON records (client_id, assessment_type, email_index);
