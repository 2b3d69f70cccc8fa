-- A claim that skips destinations (full lines, paused destinations, those
-- waiting for their rate's next token) reads the due deliveries of each
-- other destination down this index, rather than walking the skipped
-- destinations' due backlog in the (next_at, id) order of deliveries_due:
-- with 32 destinations hanging and 2,000 due each, every claim read 64,000
-- rows to reach a healthy destination's 32, inside the writer's
-- transaction, behind the saves.
-- Its predicate says "pending" in other words (the table's CHECK allows
-- three states), and so do that claim's walks: no other index of pending
-- deliveries can serve them, whatever the planner's statistics say.
CREATE INDEX deliveries_due_by_destination ON deliveries (client_id, destination, next_at, id)
    WHERE state NOT IN ('delivered', 'failed');
-- When a claimed delivery became due. A claim moves next_at to its
-- lease's end (so due walks pass over deliveries in flight); due_at keeps
-- the time it was due until it is tried, through a release or a lease
-- that ran out, so pads_delivery_oldest_due_seconds counts a delivery
-- waiting claimed from when it was due, not from its claim. NULL: due at
-- next_at (never claimed since it was scheduled).
ALTER TABLE deliveries ADD COLUMN due_at BIGINT;
