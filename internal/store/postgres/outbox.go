package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

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
		// Sorts off for the claim, on again for the batch's other work
		// (see qClaimLimit): the three statements go in one round trip.
		b := &pgx.Batch{}
		b.Queue(sortless)
		b.Queue(claimQuery(req.Limit), req.Owner, req.LeaseUntil.UnixNano(), req.Now.UnixNano(), refs(req.Skip), refs(req.Unordered))
		b.Queue(sorting)
		br := t.SendBatch(ctx, b)
		defer br.Close()
		if _, err := br.Exec(); err != nil {
			return err
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		out, err = sqlstore.Collect(rows, sqlstore.ScanClaimed)
		rows.Close()
		if err != nil {
			return err
		}
		if _, err := br.Exec(); err != nil {
			return err
		}
		return br.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", unavailable(err))
	}
	s.codec.OpenPayloads(out)
	return out, nil
}

// refs writes destinations as the claim's "client/id" strings.
func refs(ds []store.DestinationRef) []string {
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.ClientID+"/"+d.ID)
	}
	return out
}

// Finish records an attempt and the delivery's new state.
// The batch writes it with the batch's other finishes in one round trip
// (pipeline.go).
func (s *Store) Finish(ctx context.Context, f store.Finished) error {
	op := &finishOp{Finished: f, response: s.codec.SealResponse(f.MessageID, f.Response)}
	err := s.b.DoInput(ctx, op, func(context.Context, pgx.Tx) error {
		return errors.New("postgres: a finish ran outside its pipeline")
	})
	if err != nil {
		return fmt.Errorf("finish delivery %d: %w", f.DeliveryID, unavailable(err))
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

// HoldOwner takes a session-level advisory lock named by owner on a
// connection of its own, kept open until Release: PostgreSQL releases it
// the moment the process dies (its connections close), and TakeOver, in
// any other process, then finds the lock free.
func (s *Store) HoldOwner(ctx context.Context, owner string) (store.OwnerHold, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("hold owner: %w", err)
	}
	if _, err := conn.Exec(ctx, qLockOwner, owner); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("hold owner: %w", err)
	}
	return &ownerHold{conn: conn}, nil
}

// ownerHold is the connection that holds an owner's lock.
type ownerHold struct {
	mu   sync.Mutex
	conn *pgx.Conn
}

// Lost pings the holding connection: a connection that broke has lost
// the lock with it.
func (h *ownerHold) Lost(ctx context.Context) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return h.conn.Ping(ctx) != nil
}

// Release closes the connection, which releases the lock.
func (h *ownerHold) Release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h.conn.Close(ctx)
}

// TakeOver tries the lock of each owner that holds leases; the lock of a
// live owner is held by its process, so getting it means the owner is
// gone: its leases are dropped, and the lock let go at once.
func (s *Store) TakeOver(ctx context.Context, self string) (int, error) {
	rows, err := s.pool.Query(ctx, qLeaseOwners, self)
	if err != nil {
		return 0, fmt.Errorf("take over: %w", err)
	}
	owners, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("take over: %w", err)
	}
	total := 0
	for _, owner := range owners {
		n, err := s.takeOver(ctx, owner)
		if err != nil {
			return total, fmt.Errorf("take over: %w", err)
		}
		total += n
	}
	return total, nil
}

// takeOver drops owner's leases if its lock is free, holding the lock
// while it does: an owner's process takes its lock before it claims (a
// process whose hold broke claims under a new owner), so no claim under
// owner can slip in between the check and the drop.
func (s *Store) takeOver(ctx context.Context, owner string) (int, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	var free bool
	if err := conn.QueryRow(ctx, qTryLockOwner, owner).Scan(&free); err != nil || !free {
		return 0, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), qUnlockOwner, owner)
	tag, err := conn.Exec(ctx, qReleaseOwner, owner)
	return int(tag.RowsAffected()), err
}

// NextDue returns the earliest scheduled due time after after.
func (s *Store) NextDue(ctx context.Context, after time.Time) (time.Time, bool, error) {
	var at int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sortless); err != nil {
			return err
		}
		return tx.QueryRow(ctx, qNextDue, after.UnixNano()).Scan(&at)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return time.Unix(0, at).UTC(), true, nil
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

// claimQuery is the claim statement for limit (at least 1). Each limit is
// a statement of its own, prepared and planned once per connection; the
// dispatcher asks for at most a line's worth (32 by default), whose
// statements are written once here.
func claimQuery(limit int) string {
	limit = max(limit, 1)
	if limit < len(claimQueries) {
		return claimQueries[limit]
	}
	return fmt.Sprintf(qClaimLimit, limit)
}

var claimQueries = func() []string {
	qs := make([]string, 65)
	for n := 1; n < len(qs); n++ {
		qs[n] = fmt.Sprintf(qClaimLimit, n)
	}
	return qs
}()
