-- The audit log of operators' actions: who, what, when; never a value.
CREATE TABLE audit (
    id     BIGSERIAL PRIMARY KEY,
    at     BIGINT NOT NULL,
    actor  TEXT   NOT NULL,
    action TEXT   NOT NULL,
    target TEXT   NOT NULL
);
