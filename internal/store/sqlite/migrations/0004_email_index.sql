-- The email index without updated_at: an update that keeps its email then
-- leaves the index alone (see tx.Update) instead of moving the entry to a
-- new position in a random page. Rule 3's "most recently updated" sorts
-- the few records that share an email after the index finds them.
DROP INDEX records_by_email;
CREATE INDEX records_by_email ON records (client_id, assessment_type, email_index);
