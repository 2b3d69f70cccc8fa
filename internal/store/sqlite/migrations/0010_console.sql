-- The operator console's reads (store.Console). A page of deliveries,
-- newest first, walks one of these in order and stops after the page,
-- whatever its filters and however deep it is (no OFFSET):
--   a destination's deliveries, of a state: deliveries_by_destination
--   a client's deliveries, of a state: deliveries_by_client_state
--   the deliveries of a state: deliveries_by_state
--   all, or by time: deliveries_by_created, which also holds what the
--   overview counts per destination over the last hour and day.
-- The page of a client's or destination's deliveries in any state is the
-- union of one walk per state. The audit log pages by actor or action.
CREATE INDEX deliveries_by_destination ON deliveries (client_id, destination, state, created_at, id);
CREATE INDEX deliveries_by_client_state ON deliveries (client_id, state, created_at, id);
CREATE INDEX deliveries_by_state ON deliveries (state, created_at, id);
CREATE INDEX deliveries_by_created ON deliveries (created_at, client_id, destination, state);
CREATE INDEX audit_by_actor ON audit (actor, id);
CREATE INDEX audit_by_action ON audit (action, id);
