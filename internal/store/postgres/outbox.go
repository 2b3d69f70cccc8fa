package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// Claim leases due deliveries. SKIP LOCKED lets processes claim side by
// side without waiting on each other's rows.
func (s *Store) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	o := &op{claim: &req}
	if err := s.do(ctx, o); err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	s.codec.OpenPayloads(o.claimed)
	return o.claimed, nil
}

// claim runs the claim in t: qClaimLimit, or qClaimSkipping when it
// skips destinations (so that their backlog costs it nothing) or caps
// what each may get. Sorts go
// off for the claim, and on again for the batch's other work (see
// qClaimLimit): the three statements go in one round trip.
func claim(ctx context.Context, t pgx.Tx, req *store.ClaimRequest) ([]store.Claimed, error) {
	b := &pgx.Batch{}
	b.Queue(sortless)
	q, args := claimQuery(req.Limit), []any{req.Owner, req.LeaseUntil.UnixNano(), req.Now.UnixNano(), refs(req.Skip), refs(req.Unordered)}
	if req.ByDestination() {
		q = claimSkippingQuery(req.Limit)
		args = append(args, roomArgs(req)...)
	}
	b.Queue(q, args...)
	b.Queue(sorting)
	br := t.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Claimed, error) { return sqlstore.ScanClaimed(r) })
	if err != nil {
		return nil, err
	}
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	return out, br.Close()
}

// roomArgs are qClaimSkipping's last three parameters: the destinations
// with a room of their own, their rooms, and every other's.
func roomArgs(req *store.ClaimRequest) []any {
	names, rooms := make([]string, 0, len(req.Room)), make([]int32, 0, len(req.Room))
	for _, r := range req.Room {
		names, rooms = append(names, r.ClientID+"/"+r.ID), append(rooms, int32(max(r.N, 1)))
	}
	other := req.Limit
	if req.OtherRoom > 0 {
		other = req.OtherRoom
	}
	return []any{names, rooms, int32(other)}
}

// refs writes destinations as the claim's "client/id" strings.
func refs(ds []store.DestinationRef) []string {
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.ClientID+"/"+d.ID)
	}
	return out
}

// Finish records an attempt and the delivery's new state. A writer loop
// writes it with its batch's other finishes in one round trip
// (pipeline.go).
func (s *Store) Finish(ctx context.Context, f store.Finished) error {
	o := &op{finish: &finishOp{Finished: f, response: s.codec.SealResponse(f.MessageID, f.Response)}}
	if err := s.do(ctx, o); err != nil {
		return fmt.Errorf("finish delivery %d: %w", f.DeliveryID, err)
	}
	return nil
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

// claimSkippingQuery is claimQuery's statement for a claim that skips
// destinations (qClaimSkipping).
func claimSkippingQuery(limit int) string {
	limit = max(limit, 1)
	if limit < len(claimSkippingQueries) {
		return claimSkippingQueries[limit]
	}
	return fmt.Sprintf(qClaimSkipping, limit)
}

var claimQueries, claimSkippingQueries = claimStatements(qClaimLimit), claimStatements(qClaimSkipping)

// claimStatements writes q's statement for each limit from 1 to 64.
func claimStatements(q string) []string {
	qs := make([]string, 65)
	for n := 1; n < len(qs); n++ {
		qs[n] = fmt.Sprintf(q, n)
	}
	return qs
}
