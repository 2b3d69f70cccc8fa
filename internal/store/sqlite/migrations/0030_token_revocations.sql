-- Revoked tokens: each client's tokens issued before revoked_before (Unix
-- nanoseconds) are refused (pads tokens revoke). One row per client.
CREATE TABLE token_revocations (
    client_id      TEXT    PRIMARY KEY,
    revoked_before INTEGER NOT NULL
) STRICT;
