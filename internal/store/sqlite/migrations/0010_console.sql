-- The operator console's reads (store.Console). A page of deliveries,
-- newest first, walks one of these in order and stops after the page,
-- whatever its filters and however deep it is (no OFFSET):
--   a destination's deliveries of a state: deliveries_by_destination (a
--   destination's deliveries in any state: one walk per state, merged);
--   the deliveries of a state: deliveries_by_state;
--   any other filter: deliveries_by_created, which holds the client,
--   destination and state, so the walk filters inside the index. It also
--   holds what the overview counts over the last hour and day.
-- Three indexes, not one per filter: each one costs every delivery's
-- insert and state change.
-- The audit log pages by actor or by action.
CREATE INDEX deliveries_by_destination ON deliveries (client_id, destination, state, created_at, id);
CREATE INDEX deliveries_by_state ON deliveries (state, created_at, id);
CREATE INDEX deliveries_by_created ON deliveries (created_at, client_id, destination, state);
CREATE INDEX audit_by_actor ON audit (actor, id);
CREATE INDEX audit_by_action ON audit (action, id);
