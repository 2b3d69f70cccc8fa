// Package store keeps patient records durably, behind one small interface
// with one implementation per database (store/sqlite, store/postgres).
//
// The rules of a save (the four create-or-update rules, merge, encryption,
// first-time triggers and their outbox events) live once, in Saver; a driver
// supplies only row access inside its transaction (Tx) and its way of
// batching many saves into one commit. storetest holds the conformance suite
// every driver runs.
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
	// ErrNotFound: no record has that key for that client.
	ErrNotFound = errors.New("store: record not found")
	// ErrClosed: the store is closed or closing; nothing was written.
	ErrClosed = errors.New("store: closed")
)

// Store keeps records and the deliveries of their results.
type Store interface {
	Records
	Outbox
	Auditor
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// Close waits for saves under way, then releases the database.
	Close() error
}

// Records keeps patient records.
type Records interface {
	// Save creates or updates one record by the contract's rules and, in
	// the same transaction, records the events its first-time triggers
	// cause. It returns only after the transaction is durably committed.
	// Errors: ErrClosed, a context error (nothing was acknowledged), or a
	// database error.
	Save(ctx context.Context, req SaveRequest) (SaveResult, error)
	// Get returns a client's record. Errors: ErrNotFound.
	Get(ctx context.Context, key record.Key) (record.Record, error)
	// Reseal rewrites every record not sealed under the keyring's first
	// key, a page of records per transaction, so an old key can be retired.
	// It runs beside live saves.
	Reseal(ctx context.Context) (ResealReport, error)
}

// SaveRequest is one validated save of a client.
type SaveRequest struct {
	ClientID       string
	AssessmentType string
	// PatientUUID is "" when the call gave none (rules 3 and 4).
	PatientUUID string
	// Email is the call's email; records are found by it case-insensitively.
	Email    string
	FunnelID string
	Patch    record.Patch
	// FullSubscription: the client receives sensitive results, so the first
	// assessmentCompleted raises a sensitive event.
	FullSubscription bool
	// Destinations are the keys of the destinations of the funnel's
	// environment: each event raised is enqueued once for each.
	Destinations []string
}

// SaveResult says what a save did.
type SaveResult struct {
	PatientUUID string
	Created     bool
	Triggers    record.Triggers
	// Events are the outbox events the save recorded.
	Events []Event
	// Deliveries counts the deliveries the save enqueued.
	Deliveries int
}

// Event is one outbox entry: a record reached a state whose results must be
// delivered. It is written in the transaction of the save that caused it.
type Event struct {
	ID        int64
	Key       record.Key
	FunnelID  string
	DataType  record.DataType
	CreatedAt time.Time
}

// ResealReport says what Reseal did.
type ResealReport struct {
	// Resealed counts the records rewritten under the first key.
	Resealed int
	// Records counts the records by the id of the key sealing them, after.
	Records map[string]int
}

// Config is what every driver needs besides its database address.
type Config struct {
	Keys *seal.Keyring
	// Now is the clock; time.Now when nil.
	Now func() time.Time
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
	if c.Now == nil {
		c.Now = time.Now
	}
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
