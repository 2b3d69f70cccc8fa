package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// Stmt is one SQL statement of a cold path's write, with ? placeholders.
type Stmt struct {
	SQL  string
	Args []any
}

// DB is what the shared paths need of a driver: queries on its read pool
// (written with ? placeholders, which the driver rebinds for its dialect)
// and durable writes through its writer loop.
type DB interface {
	Query(ctx context.Context, q string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) Scanner
	// Write runs stmts in order in one durable transaction of the writer
	// and returns how many rows each changed.
	Write(ctx context.Context, stmts ...Stmt) ([]int64, error)
	// WriteBeside is Write for background work that must not hold up the
	// writer's batches where the database takes several writers at once:
	// PostgreSQL runs it in a transaction of its own on a connection of
	// its own, so that no save waits for its commit; SQLite has one
	// writer and runs it there.
	WriteBeside(ctx context.Context, stmts ...Stmt) ([]int64, error)
}

// Shared is the part of a store both drivers run the same way, over their
// DB: the console's queries, the delivery list and replay, the outbox
// statistics, the audit log, token revocations and the reseal. A driver
// embeds it and adds its hot paths (commit, claim, finish) and its
// owners' leases.
type Shared struct {
	db    DB
	codec Codec
}

// NewShared returns the shared paths over db.
func NewShared(db DB, codec Codec) *Shared { return &Shared{db: db, codec: codec} }

// Deliveries lists deliveries, newest first.
func (s *Shared) Deliveries(ctx context.Context, f store.DeliveryFilter) ([]store.Delivery, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	out, err := queryAll(ctx, s.db, scanDeliveryRow, listDeliveries, f.State, f.State, f.ClientID, f.ClientID, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return out, nil
}

// Delivery returns one delivery and its attempts, oldest first.
func (s *Shared) Delivery(ctx context.Context, id int64) (store.Delivery, []store.Attempt, error) {
	d, err := scanDelivery(s.db.QueryRow(ctx, getDelivery, id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, nil, store.ErrNotFound
	}
	if err != nil {
		return d, nil, fmt.Errorf("get delivery: %w", err)
	}
	attempts, err := queryAll(ctx, s.db, scanAttempt, listAttempts, id)
	if err != nil {
		return d, nil, fmt.Errorf("get attempts: %w", err)
	}
	s.codec.openAttempts(d, attempts)
	return d, attempts, nil
}

// Replay makes failed (or, by id, any finished) deliveries pending again
// as a new series.
func (s *Shared) Replay(ctx context.Context, r store.ReplayRequest) (int, error) {
	q := `UPDATE deliveries SET state = 'pending', series = series + 1, attempts = 0, next_at = ?, due_at = NULL, lease_owner = NULL,
		lease_until = NULL, updated_at = ? WHERE `
	args := []any{r.Now.UnixNano(), r.Now.UnixNano()}
	if r.ID != 0 {
		q, args = q+"id = ? AND state <> 'pending' AND "+hasBody, append(args, r.ID)
	} else {
		where, a := replayed(r)
		q, args = q+where, append(args, a...)
	}
	n, err := s.db.Write(ctx, Stmt{q, args})
	if err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	if n[0] == 0 && r.ID != 0 {
		var gone int
		err := s.db.QueryRow(ctx, `SELECT count(*) FROM deliveries d JOIN events e ON e.id = d.event_id
			WHERE d.id = ? AND d.state <> 'pending' AND e.payload IS NULL`, r.ID).Scan(&gone)
		if err != nil {
			return 0, fmt.Errorf("replay: %w", err)
		}
		if gone > 0 {
			return 0, store.ErrBodyGone
		}
	}
	return int(n[0]), nil
}

// hasBody holds for a delivery whose event still has its body: retention
// removes bodies (docs/data-lifecycle.md), and a delivery without one
// cannot be sent again.
const hasBody = "EXISTS (SELECT 1 FROM events e WHERE e.id = deliveries.event_id AND e.payload IS NOT NULL)"

// replayed selects the deliveries a replay by selection changes.
func replayed(r store.ReplayRequest) (string, []any) {
	q := "state = 'failed' AND updated_at >= ? AND " + hasBody
	args := []any{r.Since.UnixNano()}
	if r.ClientID != "" {
		q, args = q+" AND client_id = ?", append(args, r.ClientID)
		if r.Destination != "" {
			q, args = q+" AND destination = ?", append(args, r.Destination)
		}
	}
	return q, args
}

// Release drops owner's leases on ids, so they are due at once.
func (s *Shared) Release(ctx context.Context, owner string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	args := make([]any, 0, 1+len(ids))
	args = append(args, owner)
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := s.db.Write(ctx, Stmt{"UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, next_at = 0 WHERE lease_owner = ? AND id IN (?" +
		strings.Repeat(", ?", len(ids)-1) + ")", args})
	if err != nil {
		return fmt.Errorf("release deliveries: %w", err)
	}
	return nil
}

// OutboxStats counts pending and failed deliveries, at now. A due
// delivery counts from when it became due: one claimed before, released
// (next_at 0: due first) or whose lease ran out, from the due time its
// claim kept (due_at); one released before due_at was kept, from its
// creation. The deliveries claimed and not yet tried are the
// dispatcher's to count (Dispatcher.OldestWaiting).
func (s *Shared) OutboxStats(ctx context.Context, now time.Time) (store.OutboxStats, error) {
	var st store.OutboxStats
	var oldest, released sql.NullInt64
	err := s.db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM deliveries WHERE state = 'pending'),
		(SELECT count(*) FROM deliveries WHERE state = 'failed'),
		(SELECT min(coalesce(due_at, next_at)) FROM deliveries WHERE state = 'pending' AND next_at > 0 AND next_at <= ?),
		(SELECT min(coalesce(due_at, created_at)) FROM deliveries WHERE state = 'pending' AND next_at = 0)`, now.UnixNano()).Scan(&st.Pending, &st.Failed, &oldest, &released)
	if err != nil {
		return st, fmt.Errorf("outbox stats: %w", err)
	}
	if released.Valid && (!oldest.Valid || released.Int64 < oldest.Int64) {
		oldest = released
	}
	if oldest.Valid {
		st.OldestDue = max(0, now.Sub(time.Unix(0, oldest.Int64)))
	}
	return st, nil
}

// Audit appends an entry, durably.
func (s *Shared) Audit(ctx context.Context, e store.AuditEntry) error {
	_, err := s.db.Write(ctx, Stmt{"INSERT INTO audit (at, actor, action, target) VALUES (?, ?, ?, ?)",
		[]any{e.At.UnixNano(), e.Actor, e.Action, e.Target}})
	return err
}

// AuditLog returns the newest entries first.
func (s *Shared) AuditLog(ctx context.Context, limit int) ([]store.AuditEntry, error) {
	out, err := queryAll(ctx, s.db, scanAudit, "SELECT id, at, actor, action, target FROM audit ORDER BY id DESC LIMIT ?", limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return out, nil
}

// RevokeTokens records a client's revocation, durably; it never moves back.
func (s *Shared) RevokeTokens(ctx context.Context, clientID string, before time.Time) error {
	_, err := s.db.Write(ctx, Stmt{`INSERT INTO token_revocations (client_id, revoked_before) VALUES (?, ?)
		ON CONFLICT (client_id) DO UPDATE SET revoked_before = CASE WHEN excluded.revoked_before > token_revocations.revoked_before
		THEN excluded.revoked_before ELSE token_revocations.revoked_before END`, []any{clientID, before.UnixNano()}})
	return err
}

// TokenRevocations returns every client's revocation time.
func (s *Shared) TokenRevocations(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.db.Query(ctx, `SELECT client_id, revoked_before FROM token_revocations`)
	if err != nil {
		return nil, fmt.Errorf("token revocations: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var ns int64
		if err := rows.Scan(&id, &ns); err != nil {
			return nil, fmt.Errorf("token revocations: %w", err)
		}
		out[id] = time.Unix(0, ns).UTC()
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("token revocations: %w", err)
	}
	return out, nil
}

// queryAll runs q on db and reads every row it returns with scan.
func queryAll[T any](ctx context.Context, db DB, scan func(Scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collect(rows, scan)
}
