-- Events and deliveries of type results-updated (docs/delivery.md#results-updated):
-- the new results of an assessment whose results a destination already
-- received. The CHECK of data_type on both tables lets the new type in.
-- NOT VALID: every stored row passes the old, narrower CHECK, so there is
-- nothing to scan; new and changed rows are checked as before.
ALTER TABLE events DROP CONSTRAINT events_data_type_check,
    ADD CONSTRAINT events_data_type_check CHECK (data_type IN ('non-sensitive', 'sensitive', 'results-updated')) NOT VALID;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_data_type_check,
    ADD CONSTRAINT deliveries_data_type_check CHECK (data_type IN ('non-sensitive', 'sensitive', 'results-updated')) NOT VALID;
