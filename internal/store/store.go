// Package store is the seam between pads and its databases: the Store
// interface, the types that cross it, and (in storetest) the conformance
// suite every driver passes. The drivers are store/sqlite (embedded, the
// default) and store/postgres (several processes on one database); what
// they share lives in store/sqlstore and store/groupcommit.
//
// A store keeps records sealed (encrypted) at rest and knows nothing of
// the rules of a save: internal/save finds a record, applies the rules of
// internal/record to it, and commits the outcome, which the store writes
// only if the record is still as it was found (optimistic concurrency).
package store

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/seal"
)

// Errors a Store returns; callers compare with errors.Is.
var (
	// ErrNotFound: no record or delivery has that key or id.
	ErrNotFound = errors.New("store: not found")
	// ErrClosed: the store is closed or closing; nothing was written.
	ErrClosed = errors.New("store: closed")
	// ErrUnavailable: the database cannot be reached, or cannot take
	// writes now (it is down or restarting, its disk is full); nothing was
	// written. The same call may succeed later, without a restart.
	ErrUnavailable = errors.New("store: database unavailable")
	// ErrConflict: a commit found the record changed since it was read
	// (or created meanwhile); nothing was written. Read it again and
	// reapply the save.
	ErrConflict = errors.New("store: the record changed since it was read")
)

// Store keeps records and the deliveries of their results.
type Store interface {
	Records
	Outbox
	Auditor
	Console
	Revocations
	Pauses
	Lifecycle
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// Close waits for the writes under way, then releases the database.
	Close() error
}

// Records keeps patient records.
type Records interface {
	// Find returns the record a save of l would change: the client's
	// record with l's key or, when l has no PatientUUID, the client's most
	// recently updated record of l's assessment type whose email matches
	// l's case-insensitively. It returns nil when there is none.
	Find(ctx context.Context, l Lookup) (*Stored, error)
	// Commit writes a save's outcome in one durable transaction: c.Record,
	// and each of c.Events with one pending delivery per destination of
	// c.Destinations. It writes only if c.Lookup still finds what Find
	// found (c.Previous, unchanged, or still nothing); otherwise it writes
	// nothing and returns ErrConflict. It returns once the transaction is
	// on disk. Errors: ErrConflict, ErrClosed, a context error (nothing
	// was written), or a database error.
	Commit(ctx context.Context, c Commit) (Committed, error)
	// Get returns a client's record. Errors: ErrNotFound.
	Get(ctx context.Context, key record.Key) (record.Record, error)
	// LatestResults returns, by destination id, the latest delivery (by
	// event, then delivery) of the record's results (an event of data
	// type record.Sensitive or record.ResultsUpdated) that did not fail
	// for good: delivered or pending; empty when there is none (or no
	// such record). A failed one is not a message its destination has. A save asks only when
	// it changed the results of a record whose assessment was completed
	// before it.
	LatestResults(ctx context.Context, key record.Key) (map[string]ResultsDelivery, error)
	// Reseal rewrites every record, event payload and saved answer not
	// sealed under the keyring's first key, a page per transaction, so an
	// old key can be retired. It runs beside live saves and deliveries.
	Reseal(ctx context.Context) (ResealReport, error)
}

// Lookup names the record a save changes.
type Lookup struct {
	ClientID       string
	AssessmentType string
	// PatientUUID is "" for a save that gave none: the record is then
	// found by Email.
	PatientUUID string
	Email       string
}

// Stored is a record as Find read it.
type Stored struct {
	record.Record
	// Version counts the writes of the record: Commit checks that it has
	// not moved since the record was read.
	Version int64
	// SealedWith is the id of the encryption key the record is sealed
	// with: a record sealed with an older key gets its email's blind index
	// recomputed when it is next written.
	SealedWith string
	// StaleIndex: the record's email index is of an older form (before
	// indexes were scoped per client and Unicode-normalized): its next
	// write indexes it again.
	StaleIndex bool
}

// ResultsDelivery is a destination's latest delivery of a record's
// results (Records.LatestResults).
type ResultsDelivery struct {
	MessageID string
	State     string // Pending or Delivered
}

// Commit is the outcome of one save, for Store.Commit.
type Commit struct {
	Lookup Lookup
	// Previous is what Find returned for Lookup: the record the save
	// changes, or nil when the save creates one.
	Previous *Stored
	// Record is the record as the save leaves it.
	Record record.Record
	// Events are the events the save raised, in order.
	Events []NewEvent
	// Destinations are the ids of the destinations each event goes to.
	Destinations []string
}

// NewEvent is an event a save raises: a record reached a state whose
// results must be delivered, with the payload snapshotted at that moment.
type NewEvent struct {
	DataType record.DataType
	// Model is the version of the scoring model that made the payload.
	Model string
	// Payload is the JSON body every delivery of the event sends; the store
	// seals it.
	Payload []byte
	// FHIR is the event's FHIR R4 Bundle (JSON), sent instead of Payload
	// to destinations of format fhir-r4; the store seals it. nil: none
	// was made.
	FHIR []byte
	// Snapshot: Payload is not a body but the event's format-neutral
	// snapshot (the record's values and the results computed at the save,
	// with their model; internal/snapshot), sealed apart from payloads.
	// Each attempt builds the body of its destination's format from it;
	// FHIR is nil.
	Snapshot bool
	// Destinations, when not nil, are the ids of the destinations this
	// event goes to (those whose events include it), instead of
	// Commit.Destinations.
	Destinations []string
}

// Committed says what Commit wrote.
type Committed struct {
	Events []Event
	// Deliveries counts the deliveries enqueued.
	Deliveries int
}

// Event is one outbox entry, as stored.
type Event struct {
	ID        int64
	Key       record.Key
	FunnelID  string
	DataType  record.DataType
	Model     string
	CreatedAt time.Time
}

// ResealReport says what Reseal did to each kind of sealed value.
type ResealReport struct {
	Records Resealed
	// Payloads are the events' payloads, each with its FHIR Bundle.
	Payloads Resealed
	// Responses are the starts of destinations' answers kept with attempts.
	Responses Resealed
}

// Resealed counts what Reseal did to one kind of sealed value.
type Resealed struct {
	// Rewritten counts the values rewritten under the first key.
	Rewritten int
	// ByKey counts the values by the id of the key sealing them, after. A
	// payload or answer that opens with no key in force stays as it was,
	// counted under the key that sealed it.
	ByKey map[string]int
}

// Config is what every driver needs besides its database address.
type Config struct {
	// Keys seal records, payloads and answers at rest; the first seals.
	Keys *seal.Keyring
	// ObserveBatch, when set, is told the saves of each committed batch.
	ObserveBatch func(saves int)
	// ObserveCommit, when set, is told how long each batch's transaction
	// took, its sync to disk included, and whether it committed: a slow
	// disk shows there first.
	ObserveCommit func(d time.Duration, ok bool)
	// Logger receives what the store's own goroutines report (a recovered
	// panic); it never receives a record's values.
	Logger *slog.Logger
	// MaxBatch bounds the saves of one transaction; 256 when 0.
	MaxBatch int
}

// WithDefaults returns c with its zero values filled in.
func (c Config) WithDefaults() Config {
	if c.ObserveBatch == nil {
		c.ObserveBatch = func(int) {}
	}
	if c.ObserveCommit == nil {
		c.ObserveCommit = func(time.Duration, bool) {}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = 256
	}
	return c
}

// Backuper is a store that copies its database while it serves (SQLite;
// a PostgreSQL database is backed up with the server's own tools).
type Backuper interface {
	// Backup writes a consistent copy of the whole database to path, a
	// file that must not exist, created 0600. Its records stay sealed: the
	// copy opens with the same encryption keys.
	Backup(ctx context.Context, path string) error
}
