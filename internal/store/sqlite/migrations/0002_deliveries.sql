-- The payload of each event, snapshotted and sealed when the event is
-- raised, so every attempt and replay sends the same body.
ALTER TABLE events ADD COLUMN payload BLOB;

-- One row per (event, destination): the delivery queue and its history.
CREATE TABLE deliveries (
    id          INTEGER PRIMARY KEY,
    message_id  TEXT    NOT NULL UNIQUE,   -- webhook-id, stable across attempts and replays
    event_id    INTEGER NOT NULL REFERENCES events (id),
    client_id   TEXT    NOT NULL,
    destination TEXT    NOT NULL,          -- the destination's key
    data_type   TEXT    NOT NULL CHECK (data_type IN ('non-sensitive', 'sensitive')),
    state       TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    series      INTEGER NOT NULL,          -- 1, plus one per replay
    attempts    INTEGER NOT NULL,          -- attempts in the current series
    next_at     INTEGER NOT NULL,          -- due time, Unix nanoseconds
    lease_owner TEXT,                      -- the process holding it, while leased
    lease_until INTEGER,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    last_error  TEXT
) STRICT;

CREATE INDEX deliveries_due ON deliveries (state, next_at);
CREATE INDEX deliveries_by_client ON deliveries (client_id, id);

CREATE TABLE attempts (
    id          INTEGER PRIMARY KEY,
    delivery_id INTEGER NOT NULL REFERENCES deliveries (id),
    series      INTEGER NOT NULL,
    number      INTEGER NOT NULL,
    owner       TEXT    NOT NULL,
    started_at  INTEGER NOT NULL,
    duration_ns INTEGER NOT NULL,
    status_code INTEGER,                   -- null: no HTTP answer
    error_class TEXT,                      -- null: delivered
    response    BLOB                       -- sealed first 1 KiB of the answer
) STRICT;

CREATE INDEX attempts_by_delivery ON attempts (delivery_id, id);
