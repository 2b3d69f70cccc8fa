package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

const (
	deliveryColumns = sqlstore.DeliveryColumns
	deliveryFrom    = sqlstore.DeliveryFrom
)

// Claim leases due deliveries on the writer, so claims batch with saves.
func (s *Store) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	var out []store.Claimed
	err := s.w.do(ctx, func(ctx context.Context, t *tx) error {
		out = out[:0]
		// next_at moves to the lease's end: due-scans skip deliveries in
		// flight, and a dead claimer's deliveries fall due when its lease ends.
		//
		// A delivery whose record has an earlier delivery pending to the
		// same destination waits for it (per-record order), unless the
		// destination is unordered.
		q := `UPDATE deliveries SET lease_owner = ?, lease_until = ?, next_at = ? WHERE id IN (
			SELECT c.id FROM deliveries c WHERE c.state = 'pending' AND c.next_at <= ? AND (c.lease_until IS NULL OR c.lease_until <= ?)`
		args := []any{req.Owner, req.LeaseUntil.UnixNano(), req.LeaseUntil.UnixNano(), req.Now.UnixNano(), req.Now.UnixNano()}
		if len(req.Skip) > 0 {
			q += " AND (c.client_id, c.destination) NOT IN (VALUES " + pairs(len(req.Skip)) + ")"
			args = appendRefs(args, req.Skip)
		}
		q += " AND ("
		if len(req.Unordered) > 0 {
			q += "(c.client_id, c.destination) IN (VALUES " + pairs(len(req.Unordered)) + ") OR "
			args = appendRefs(args, req.Unordered)
		}
		q += `NOT EXISTS (SELECT 1 FROM deliveries p WHERE p.record_id = c.record_id AND p.destination = c.destination
			AND p.state = 'pending' AND p.event_id < c.event_id AND p.client_id = c.client_id))`
		q += " ORDER BY c.next_at, c.id LIMIT ?) RETURNING id"
		args = append(args, req.Limit)
		ids, err := queryIDs(ctx, t.conn, q, args...)
		if err != nil || len(ids) == 0 {
			return err
		}
		rows, err := t.conn.QueryContext(ctx, "SELECT "+deliveryColumns+sqlstore.ClaimedBodies+deliveryFrom+
			" WHERE d.id IN ("+placeholders(len(ids))+") ORDER BY d.next_at, d.id", anys(ids)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlstore.Collect(rows, sqlstore.ScanClaimed)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	s.codec.OpenPayloads(out)
	return out, nil
}

// Finish records an attempt and the delivery's new state.
func (s *Store) Finish(ctx context.Context, f store.Finished) error {
	response := s.codec.SealResponse(f.MessageID, f.Response) // off the writer
	err := s.w.do(ctx, func(ctx context.Context, t *tx) error {
		if _, err := t.attempt.ExecContext(ctx, f.DeliveryID, f.Series, f.Number, f.Owner, f.StartedAt.UnixNano(), int64(f.Duration),
			sqlstore.NullInt(f.StatusCode), sqlstore.NullString(f.ErrorClass), response); err != nil {
			return err
		}
		_, err := t.finish.ExecContext(ctx, f.State, f.Number, f.NextAt.UnixNano(), f.StartedAt.Add(f.Duration).UnixNano(),
			sqlstore.NullString(f.ErrorClass), f.DeliveryID, f.Owner, f.Series)
		return err
	})
	if err != nil {
		return fmt.Errorf("finish delivery %d: %w", f.DeliveryID, err)
	}
	return nil
}

// Release drops owner's leases on ids.
func (s *Store) Release(ctx context.Context, owner string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	return s.w.do(ctx, func(ctx context.Context, t *tx) error {
		_, err := t.conn.ExecContext(ctx, "UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, next_at = 0 WHERE lease_owner = ? AND id IN ("+
			placeholders(len(ids))+")", append([]any{owner}, anys(ids)...)...)
		return err
	})
}

// HoldOwner holds nothing: one pads serve serves a SQLite database (see
// lockDatabase in cmd/pads/serve.go), so while it runs, its own owner is
// the only live one.
func (s *Store) HoldOwner(ctx context.Context, owner string) (store.OwnerHold, error) {
	return noHold{}, nil
}

type noHold struct{}

func (noHold) Lost(context.Context) bool { return false }
func (noHold) Release()                  {}

// TakeOver drops every lease but self's: on a database one process serves,
// any other owner is a process that died (or this process, under an owner
// it gave up).
func (s *Store) TakeOver(ctx context.Context, self string) (int, error) {
	var n int64
	err := s.w.do(ctx, func(ctx context.Context, t *tx) error {
		res, err := t.conn.ExecContext(ctx, `UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, next_at = 0
			WHERE lease_owner IS NOT NULL AND lease_owner <> ?`, self)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// NextDue returns the earliest scheduled due time after after: one step
// down the (state, next_at) index, however long the queue.
func (s *Store) NextDue(ctx context.Context, after time.Time) (time.Time, bool, error) {
	var at sql.NullInt64
	err := s.readDB.QueryRowContext(ctx, `SELECT min(next_at) FROM deliveries WHERE state = 'pending' AND next_at > ?`, after.UnixNano()).Scan(&at)
	if err != nil || !at.Valid {
		return time.Time{}, false, err
	}
	return time.Unix(0, at.Int64).UTC(), true, nil
}

// Deliveries lists deliveries, newest first.
func (s *Store) Deliveries(ctx context.Context, f store.DeliveryFilter) ([]store.Delivery, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	rows, err := s.readDB.QueryContext(ctx, sqlstore.ListDeliveries, f.State, f.State, f.ClientID, f.ClientID, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	defer rows.Close()
	return sqlstore.Collect(rows, sqlstore.ScanDeliveryRow)
}

// Delivery returns one delivery and its attempts.
func (s *Store) Delivery(ctx context.Context, id int64) (store.Delivery, []store.Attempt, error) {
	d, err := sqlstore.ScanDelivery(s.readDB.QueryRowContext(ctx, sqlstore.GetDelivery, id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, nil, store.ErrNotFound
	}
	if err != nil {
		return d, nil, fmt.Errorf("get delivery: %w", err)
	}
	rows, err := s.readDB.QueryContext(ctx, sqlstore.ListAttempts, id)
	if err != nil {
		return d, nil, fmt.Errorf("get attempts: %w", err)
	}
	defer rows.Close()
	attempts, err := sqlstore.Collect(rows, sqlstore.ScanAttempt)
	s.codec.OpenAttempts(d, attempts)
	return d, attempts, err
}

// Replay makes deliveries pending again as a new series.
func (s *Store) Replay(ctx context.Context, r store.ReplayRequest) (int, error) {
	var n int64
	err := s.w.do(ctx, func(ctx context.Context, t *tx) error {
		q := `UPDATE deliveries SET state = 'pending', series = series + 1, attempts = 0, next_at = ?, lease_owner = NULL,
			lease_until = NULL, updated_at = ? WHERE `
		args := []any{r.Now.UnixNano(), r.Now.UnixNano()}
		if r.ID != 0 {
			q, args = q+"id = ? AND state != 'pending'", append(args, r.ID)
		} else {
			q, args = q+"state = 'failed' AND updated_at >= ?", append(args, r.Since.UnixNano())
			if r.ClientID != "" {
				q, args = q+" AND client_id = ?", append(args, r.ClientID)
				if r.Destination != "" {
					q, args = q+" AND destination = ?", append(args, r.Destination)
				}
			}
		}
		res, err := t.conn.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	return int(n), nil
}

// OutboxStats counts pending and failed deliveries.
func (s *Store) OutboxStats(ctx context.Context, now time.Time) (store.OutboxStats, error) {
	var st store.OutboxStats
	var oldest sql.NullInt64
	err := s.readDB.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM deliveries WHERE state = 'pending'),
		(SELECT count(*) FROM deliveries WHERE state = 'failed'),
		(SELECT min(next_at) FROM deliveries WHERE state = 'pending' AND next_at <= ?)`, now.UnixNano()).Scan(&st.Pending, &st.Failed, &oldest)
	if err != nil {
		return st, fmt.Errorf("outbox stats: %w", err)
	}
	if oldest.Valid {
		st.OldestDue = now.Sub(time.Unix(0, oldest.Int64))
	}
	return st, nil
}

func queryIDs(ctx context.Context, conn *sql.Conn, q string, args ...any) ([]int64, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func placeholders(n int) string { return "?" + strings.Repeat(", ?", n-1) }

// pairs is n row values of two placeholders.
func pairs(n int) string { return "(?, ?)" + strings.Repeat(", (?, ?)", n-1) }

func appendRefs(args []any, refs []store.DestinationRef) []any {
	for _, r := range refs {
		args = append(args, r.ClientID, r.ID)
	}
	return args
}

func anys(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
