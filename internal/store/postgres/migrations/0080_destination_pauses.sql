-- Paused destinations (pads destinations pause, a 410 Gone): a paused
-- destination is sent nothing; its deliveries wait, pending, until it is
-- resumed. One row per paused destination; resuming deletes it.
CREATE TABLE destination_pauses (
    client_id      TEXT    NOT NULL,
    destination_id TEXT    NOT NULL,
    paused_at      BIGINT NOT NULL,
    reason         TEXT    NOT NULL,
    paused_by      TEXT    NOT NULL,
    PRIMARY KEY (client_id, destination_id)
);
