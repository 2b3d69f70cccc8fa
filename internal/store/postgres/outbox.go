package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

const deliveryColumns = sqlstore.DeliveryColumns

// The shared queries, with PostgreSQL's placeholders.
var (
	listDeliveries = sqlstore.Rebind(sqlstore.ListDeliveries)
	getDelivery    = sqlstore.Rebind(sqlstore.GetDelivery)
	listAttempts   = sqlstore.Rebind(sqlstore.ListAttempts)
	insertAudit    = sqlstore.Rebind(sqlstore.InsertAudit)
	listAudit      = sqlstore.Rebind(sqlstore.ListAudit)
)

// Claim leases due deliveries. SKIP LOCKED lets processes claim side by
// side without waiting on each other's rows.
func (s *Store) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	var out []store.Claimed
	err := s.b.Do(ctx, func(ctx context.Context, t pgx.Tx) error {
		out = out[:0]
		skipClients, skipIDs := []string{}, []string{}
		for _, k := range req.Skip {
			skipClients, skipIDs = append(skipClients, k.ClientID), append(skipIDs, k.ID)
		}
		// next_at moves to the lease's end, as in the SQLite store.
		rows, err := t.Query(ctx, "UPDATE deliveries d SET lease_owner = $1, lease_until = $2, next_at = $2 FROM events e, records r WHERE d.id IN ("+
			`SELECT id FROM deliveries WHERE state = 'pending' AND next_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
			AND NOT EXISTS (SELECT 1 FROM unnest($4::text[], $5::text[]) AS skip (client_id, id)
				WHERE skip.client_id = deliveries.client_id AND skip.id = deliveries.destination)
			ORDER BY next_at, id LIMIT $6 FOR UPDATE SKIP LOCKED)
			AND e.id = d.event_id AND r.id = e.record_id RETURNING `+deliveryColumns+", e.payload",
			req.Owner, req.LeaseUntil.UnixNano(), req.Now.UnixNano(), skipClients, skipIDs, req.Limit)
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
	if err := s.codec.OpenPayloads(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Finish records an attempt and the delivery's new state.
func (s *Store) Finish(ctx context.Context, f store.Finished) error {
	response := s.codec.SealResponse(f.MessageID, f.Response)
	err := s.b.Do(ctx, func(ctx context.Context, t pgx.Tx) error {
		if _, err := t.Exec(ctx, `INSERT INTO attempts (delivery_id, series, number, owner, started_at, duration_ns,
			status_code, error_class, response) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			f.DeliveryID, f.Series, f.Number, f.Owner, f.StartedAt.UnixNano(), int64(f.Duration),
			sqlstore.NullInt(f.StatusCode), sqlstore.NullString(f.ErrorClass), response); err != nil {
			return err
		}
		_, err := t.Exec(ctx, `UPDATE deliveries SET state = $1, attempts = $2, next_at = $3, lease_owner = NULL,
			lease_until = NULL, updated_at = $4, last_error = $5 WHERE id = $6 AND lease_owner = $7 AND series = $8`,
			f.State, f.Number, f.NextAt.UnixNano(), f.StartedAt.Add(f.Duration).UnixNano(), sqlstore.NullString(f.ErrorClass),
			f.DeliveryID, f.Owner, f.Series)
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
	return s.b.Do(ctx, func(ctx context.Context, t pgx.Tx) error {
		_, err := t.Exec(ctx, "UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, next_at = 0 WHERE lease_owner = $1 AND id = ANY($2)", owner, ids)
		return err
	})
}

// RecoverLeases drops every lease: only for a database one process serves.
func (s *Store) RecoverLeases(ctx context.Context) (int, error) {
	var n int64
	err := s.b.Do(ctx, func(ctx context.Context, t pgx.Tx) error {
		tag, err := t.Exec(ctx, "UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, next_at = 0 WHERE lease_owner IS NOT NULL")
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}

// NextDue returns the earliest scheduled due time after after.
func (s *Store) NextDue(ctx context.Context, after time.Time) (time.Time, bool, error) {
	var at sql.NullInt64
	err := s.pool.QueryRow(ctx, `SELECT min(next_at) FROM deliveries WHERE state = 'pending' AND next_at > $1`, after.UnixNano()).Scan(&at)
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
	rows, err := s.pool.Query(ctx, listDeliveries, f.State, f.State, f.ClientID, f.ClientID, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	defer rows.Close()
	return sqlstore.Collect(rows, sqlstore.ScanDeliveryRow)
}

// Delivery returns one delivery and its attempts.
func (s *Store) Delivery(ctx context.Context, id int64) (store.Delivery, []store.Attempt, error) {
	d, err := sqlstore.ScanDelivery(s.pool.QueryRow(ctx, getDelivery, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return d, nil, store.ErrNotFound
	}
	if err != nil {
		return d, nil, fmt.Errorf("get delivery: %w", err)
	}
	rows, err := s.pool.Query(ctx, listAttempts, id)
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
	err := s.b.Do(ctx, func(ctx context.Context, t pgx.Tx) error {
		const set = `UPDATE deliveries SET state = 'pending', series = series + 1, attempts = 0, next_at = $1, lease_owner = NULL,
			lease_until = NULL, updated_at = $1 WHERE `
		var tag interface{ RowsAffected() int64 }
		var err error
		if r.ID != 0 {
			tag, err = t.Exec(ctx, set+"id = $2 AND state <> 'pending'", r.Now.UnixNano(), r.ID)
		} else {
			tag, err = t.Exec(ctx, set+"state = 'failed' AND updated_at >= $2 AND ($3 = '' OR client_id = $3) AND ($3 = '' OR $4 = '' OR destination = $4)",
				r.Now.UnixNano(), r.Since.UnixNano(), r.ClientID, r.Destination)
		}
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		return nil
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
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM deliveries WHERE state = 'pending'),
		(SELECT count(*) FROM deliveries WHERE state = 'failed'),
		(SELECT min(next_at) FROM deliveries WHERE state = 'pending' AND next_at <= $1)`, now.UnixNano()).Scan(&st.Pending, &st.Failed, &oldest)
	if err != nil {
		return st, fmt.Errorf("outbox stats: %w", err)
	}
	if oldest.Valid {
		st.OldestDue = now.Sub(time.Unix(0, oldest.Int64))
	}
	return st, nil
}
