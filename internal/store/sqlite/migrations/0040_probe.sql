-- One row that readiness rewrites while the disk was full when pads last
-- wrote: a write that commits says there is room again (see Store.Ping).
CREATE TABLE probe (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    probed_at INTEGER NOT NULL
) STRICT;
