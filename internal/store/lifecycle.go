package store

import (
	"context"
	"errors"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// ErrBodyGone: the delivery's event has lost its body to retention (or the
// delivery is gone with its patient's erasure), so it cannot be sent
// again; its metadata stays.
var ErrBodyGone = errors.New("store: the event's body was removed by retention; it cannot be replayed")

// Lifecycle is how a store forgets: erasure of one patient, the export of
// what it keeps of one, and the retention sweep. docs/data-lifecycle.md
// says what each removes and keeps.
type Lifecycle interface {
	// Erase removes every record of p under its client (all assessment
	// types), and with them their events and sealed bodies, their
	// deliveries (pending ones are cancelled: none is claimed again, and a
	// process holding one finds it gone before its attempt) and their
	// attempts, in one transaction. The blind index goes with the record
	// row. A patient with nothing stored (or erased already) is zero
	// counts, not an error. A save racing the erasure either lands before
	// it (and is erased) or after it (and creates a new record).
	Erase(ctx context.Context, p Patient) (Erased, error)
	// Export returns every record of p under its client, oldest first,
	// with their events (bodies opened; nil once retention removed them),
	// deliveries and attempts. None: an empty slice.
	Export(ctx context.Context, p Patient) ([]PatientRecord, error)
	// Sweep removes one batch (up to r.Batch rows of each kind, each
	// batch its own transaction) of what retention says has expired at
	// r.Now, and says what it removed; the caller calls again while More.
	// Pending deliveries are never removed, nor the records and events
	// they belong to. Call it while holding SweepLock.
	Sweep(ctx context.Context, r SweepRequest) (Swept, error)
	// SweepLock makes the caller the one process that sweeps until unlock
	// (on PostgreSQL, a session advisory lock; SQLite has one process).
	// ok is false when another process holds it.
	SweepLock(ctx context.Context) (unlock func(), ok bool, err error)
	// SweptClients lists the clients with finished deliveries, those of
	// the config and those no longer in it, for a pass of the sweep. It
	// walks an index by client, once per pass.
	SweptClients(ctx context.Context) ([]string, error)
	// PendingKept counts the pending deliveries of each destination: what
	// retention keeps because it is not delivered yet.
	PendingKept(ctx context.Context) ([]PendingKept, error)
	// SweepPace is how the sweep should pace its batches on this store.
	SweepPace() SweepPace
}

// SweepPace shapes the retention sweep for a store; a zero field takes
// the sweeper's default (retention.Options).
type SweepPace struct {
	// Rest is the wait between batches, as a multiple of the last
	// batch's time.
	Rest float64
	// MaxBatch bounds the rows of each kind in a batch.
	MaxBatch int
}

// PendingKept is how many deliveries of a destination are pending.
type PendingKept struct {
	DestinationRef
	Deliveries int
}

// Patient names one patient of one client: by PatientUUID (every
// assessment type of that uuid) or by Email (every record whose email
// matches, case-insensitively).
type Patient struct {
	ClientID    string
	PatientUUID string
	Email       string
}

// Erased counts what an erasure removed.
type Erased struct {
	Records    int
	Events     int
	Deliveries int // every state, the cancelled ones included
	Cancelled  int // the deliveries that were still pending
	Attempts   int
}

// PatientRecord is one record of a patient as an export gives it.
type PatientRecord struct {
	record.Record
	Events []ExportedEvent
}

// ExportedEvent is an event of a record: what was (to be) delivered.
type ExportedEvent struct {
	Event
	// Payload and FHIR are the bodies as delivered; nil once retention
	// removed them.
	Payload []byte
	FHIR    []byte
	// Snapshot: Payload is the event's format-neutral snapshot, not a
	// body (NewEvent.Snapshot); the bodies are built from it.
	Snapshot bool
	// Deliveries are the event's deliveries with their attempts.
	Deliveries []ExportedDelivery
}

// ExportedDelivery is a delivery with its attempts, oldest first. The
// attempts' sealed answers are left out: they are the destination's
// words, not the patient's data.
type ExportedDelivery struct {
	Delivery
	Attempts []Attempt
}

// Retention is how long a client's data is kept (docs/configuration.md,
// clients[].retention).
type Retention struct {
	// Bodies: how long an event's sealed bodies are kept after its last
	// delivery ended (delivered, or failed for good and expired).
	Bodies time.Duration
	// Deliveries: how long a finished delivery and its attempts are kept,
	// counted from when it finished (a failed one stays replayable so
	// long). An event goes with its last delivery.
	Deliveries time.Duration
	// Records: how long a record is kept after its last save; 0 is
	// forever.
	Records time.Duration
}

// SweepRequest asks for one batch of the retention sweep.
type SweepRequest struct {
	Now time.Time
	// Retention returns a client's retention; for "" and a client no
	// longer in the config, the defaults.
	Retention func(clientID string) Retention
	// Clients are the clients to sweep: those of the config and those
	// SweptClients found (a client no longer in the config is swept with
	// Retention's answer for it, the defaults).
	Clients []string
	// Batch bounds the rows of each kind one call removes.
	Batch int
}

// Swept counts what one sweep removed.
type Swept struct {
	Bodies     int // events whose bodies were removed
	Deliveries int
	Attempts   int
	Events     int
	Records    int
	// More: a walk stopped at its batch's end; call again.
	More bool
}

// Total is everything the sweep removed.
func (s Swept) Total() int { return s.Bodies + s.Deliveries + s.Attempts + s.Events + s.Records }
