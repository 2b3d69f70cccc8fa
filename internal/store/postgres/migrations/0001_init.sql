-- Records: identity and timestamps in clear, every field sealed (AES-GCM).
-- The email is kept only as a keyed hash (email_index). Times are Unix
-- nanoseconds, as in the SQLite store.
CREATE TABLE records (
    id                      BIGSERIAL PRIMARY KEY,
    client_id               TEXT   NOT NULL,
    patient_uuid            TEXT   NOT NULL,
    assessment_type         TEXT   NOT NULL,
    funnel_id               TEXT   NOT NULL,
    email_index             BYTEA  NOT NULL,
    sealed                  BYTEA  NOT NULL,
    created_at              BIGINT NOT NULL,
    updated_at              BIGINT NOT NULL,
    form_completed_at       BIGINT,
    assessment_completed_at BIGINT,
    UNIQUE (client_id, patient_uuid, assessment_type)
);
CREATE INDEX records_by_email ON records (client_id, assessment_type, email_index, updated_at);

CREATE TABLE events (
    id         BIGSERIAL PRIMARY KEY,
    record_id  BIGINT NOT NULL REFERENCES records (id),
    funnel_id  TEXT   NOT NULL,
    data_type  TEXT   NOT NULL CHECK (data_type IN ('non-sensitive', 'sensitive')),
    created_at BIGINT NOT NULL,
    payload    BYTEA
);

CREATE TABLE deliveries (
    id          BIGSERIAL PRIMARY KEY,
    message_id  TEXT    NOT NULL UNIQUE,
    event_id    BIGINT  NOT NULL REFERENCES events (id),
    client_id   TEXT    NOT NULL,
    destination TEXT    NOT NULL,
    data_type   TEXT    NOT NULL CHECK (data_type IN ('non-sensitive', 'sensitive')),
    state       TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    series      INTEGER NOT NULL,
    attempts    INTEGER NOT NULL,
    next_at     BIGINT  NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT,
    created_at  BIGINT  NOT NULL,
    updated_at  BIGINT  NOT NULL,
    last_error  TEXT
);
CREATE INDEX deliveries_due ON deliveries (state, next_at);
CREATE INDEX deliveries_by_client ON deliveries (client_id, id);

CREATE TABLE attempts (
    id          BIGSERIAL PRIMARY KEY,
    delivery_id BIGINT  NOT NULL REFERENCES deliveries (id),
    series      INTEGER NOT NULL,
    number      INTEGER NOT NULL,
    owner       TEXT    NOT NULL,
    started_at  BIGINT  NOT NULL,
    duration_ns BIGINT  NOT NULL,
    status_code INTEGER,
    error_class TEXT,
    response    BYTEA
);
CREATE INDEX attempts_by_delivery ON attempts (delivery_id, id);
