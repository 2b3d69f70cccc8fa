-- Records: identity and timestamps in clear, every field sealed (AES-GCM).
-- The email is kept only as a keyed hash (email_index) for rules 3 and 4.
CREATE TABLE records (
    id                      INTEGER PRIMARY KEY,
    client_id               TEXT    NOT NULL,
    patient_uuid            TEXT    NOT NULL,
    assessment_type         TEXT    NOT NULL,
    funnel_id               TEXT    NOT NULL,
    email_index             BLOB    NOT NULL,
    sealed                  BLOB    NOT NULL,
    created_at              INTEGER NOT NULL, -- Unix nanoseconds
    updated_at              INTEGER NOT NULL,
    form_completed_at       INTEGER,          -- first time formCompleted was true
    assessment_completed_at INTEGER,          -- first time assessmentCompleted was true
    UNIQUE (client_id, patient_uuid, assessment_type)
) STRICT;

CREATE INDEX records_by_email ON records (client_id, assessment_type, email_index, updated_at);

-- The outbox: written in the transaction of the save that triggers it.
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    record_id   INTEGER NOT NULL REFERENCES records (id),
    funnel_id   TEXT    NOT NULL,
    data_type   TEXT    NOT NULL CHECK (data_type IN ('non-sensitive', 'sensitive')),
    created_at  INTEGER NOT NULL
) STRICT;
