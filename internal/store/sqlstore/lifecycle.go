package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/pads-dev/pads/internal/store"
)

// Querier runs statements inside one of a driver's transactions. The
// statements are written with ? placeholders; PostgreSQL's rebinds them.
type Querier interface {
	// Exec runs a statement and returns the rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Each runs a query and calls fn for each row, then closes the rows.
	Each(ctx context.Context, query string, fn func(Scanner) error, args ...any) error
}

// Dialect holds the few statements of the lifecycle that differ between
// the drivers.
type Dialect struct {
	// ByEmail selects the ids of a client's records whose email index is
	// one of n indexes; it takes the client id, then the n indexes, and
	// ends before any locking clause. Built by the driver for n.
	ByEmail func(n int) string
	// Lock ends a SELECT whose rows the transaction then changes (" FOR
	// UPDATE" on PostgreSQL; "" on SQLite, whose writer is single).
	Lock string
}

// Erase removes every record of p under its client, with its events,
// deliveries and attempts, through q (one transaction). It counts what
// it removed; nothing stored is zero counts.
func Erase(ctx context.Context, q Querier, d Dialect, codec Codec, p store.Patient) (store.Erased, error) {
	ids, err := patientRecords(ctx, q, d, codec, p, true)
	if err != nil {
		return store.Erased{}, err
	}
	var n store.Erased
	for _, id := range ids {
		if err := eraseRecord(ctx, q, id, &n); err != nil {
			return store.Erased{}, err
		}
	}
	return n, nil
}

// patientRecords returns the ids of p's records, oldest first; lock locks
// them (on PostgreSQL) against saves until the transaction ends.
func patientRecords(ctx context.Context, q Querier, d Dialect, codec Codec, p store.Patient, lock bool) ([]int64, error) {
	var query string
	var args []any
	if p.PatientUUID != "" {
		query, args = "SELECT id FROM records WHERE patient_uuid = ? AND client_id = ?", []any{p.PatientUUID, p.ClientID}
	} else {
		indexes := codec.EmailIndexes(p.Email)
		query, args = d.ByEmail(len(indexes)), []any{p.ClientID}
		for _, ix := range indexes {
			args = append(args, ix)
		}
	}
	query += " ORDER BY id"
	if lock {
		query += d.Lock
	}
	var ids []int64
	err := q.Each(ctx, query, func(sc Scanner) error {
		var id int64
		err := sc.Scan(&id)
		ids = append(ids, id)
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("find the patient's records: %w", err)
	}
	return ids, nil
}

// The statements of an erasure of one record, in the order foreign keys
// allow; each takes the record's id.
const (
	countCancelled = `SELECT count(*) FROM deliveries WHERE event_id IN (SELECT id FROM events WHERE record_id = ?)
		AND state = 'pending'`
	eraseAttempts = `DELETE FROM attempts WHERE delivery_id IN
		(SELECT d.id FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.record_id = ?)`
	eraseDeliveries = "DELETE FROM deliveries WHERE event_id IN (SELECT id FROM events WHERE record_id = ?)"
	eraseEvents     = "DELETE FROM events WHERE record_id = ?"
	eraseRecordRow  = "DELETE FROM records WHERE id = ?"
)

// eraseRecord removes one record and everything hanging from it, adding
// what it removed to n.
func eraseRecord(ctx context.Context, q Querier, id int64, n *store.Erased) error {
	err := q.Each(ctx, countCancelled, func(sc Scanner) error {
		var c int
		err := sc.Scan(&c)
		n.Cancelled += c
		return err
	}, id)
	if err != nil {
		return fmt.Errorf("erase record %d: %w", id, err)
	}
	for _, step := range []struct {
		query string
		count *int
	}{{eraseAttempts, &n.Attempts}, {eraseDeliveries, &n.Deliveries}, {eraseEvents, &n.Events}, {eraseRecordRow, &n.Records}} {
		c, err := q.Exec(ctx, step.query, id)
		if err != nil {
			return fmt.Errorf("erase record %d: %w", id, err)
		}
		*step.count += int(c)
	}
	return nil
}

// Placeholders returns n comma-separated ? placeholders.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
