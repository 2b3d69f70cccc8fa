-- When a claimed delivery became due. A claim moves next_at to its
-- lease's end (so due walks pass over deliveries in flight); due_at keeps
-- the time it was due until it is tried, through a release or a lease
-- that ran out, so pads_delivery_oldest_due_seconds counts a delivery
-- waiting claimed from when it was due, not from its claim. NULL: due at
-- next_at (never claimed since it was scheduled).
ALTER TABLE deliveries ADD COLUMN due_at INTEGER;
