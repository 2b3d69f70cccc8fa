package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// Claim leases due deliveries on the writer, so claims batch with saves.
func (s *Store) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	o := &op{claim: &req}
	if err := s.w.do(ctx, o); err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	s.codec.OpenPayloads(o.claimed)
	return o.claimed, nil
}

// claim leases due deliveries. next_at moves to the lease's end:
// due-scans skip deliveries in flight, and a dead claimer's deliveries
// fall due when its lease ends; due_at keeps when it was due (see
// migration 0110). A delivery whose record has an earlier
// delivery pending to the same destination waits for it (per-record
// order), unless the destination is unordered.
//
// A claim that skips destinations, or caps what each may get, takes
// skippingClaim, which does not read the skipped ones' backlog; one that
// does neither walks the pending deliveries in due order and reads only
// those it takes.
func (t *tx) claim(ctx context.Context, req *store.ClaimRequest) ([]store.Claimed, error) {
	q, args := walkingClaim(req)
	if req.ByDestination() {
		q, args = skippingClaim(req)
	}
	ids, err := queryIDs(ctx, t.conn, q, args...)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	rows, err := t.conn.QueryContext(ctx, "SELECT "+sqlstore.DeliveryColumns+sqlstore.ClaimedBodies+sqlstore.DeliveryFrom+
		" WHERE d.id IN ("+placeholders(len(ids))+") ORDER BY d.next_at, d.id", anys(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Claimed
	for rows.Next() {
		c, err := sqlstore.ScanClaimed(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// walkingClaim is the claim of req as a walk of the pending deliveries in
// due order (see claim): the statement and its arguments.
func walkingClaim(req *store.ClaimRequest) (string, []any) {
	q := `UPDATE deliveries SET lease_owner = ?, lease_until = ?, next_at = ?, due_at = coalesce(due_at, nullif(next_at, 0), created_at) WHERE id IN (
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
	return q, append(args, req.Limit)
}

// Finish records an attempt and the delivery's new state.
func (s *Store) Finish(ctx context.Context, f store.Finished) error {
	o := &op{finish: &finished{Finished: f, response: s.codec.SealResponse(f.MessageID, f.Response)}} // sealed off the writer
	if err := s.w.do(ctx, o); err != nil {
		return fmt.Errorf("finish delivery %d: %w", f.DeliveryID, err)
	}
	return nil
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
	n, err := s.w.Write(ctx, sqlstore.Stmt{SQL: `UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, next_at = 0
		WHERE lease_owner IS NOT NULL AND lease_owner <> ?`, Args: []any{self}})
	if err != nil {
		return 0, fmt.Errorf("take over: %w", err)
	}
	return int(n[0]), nil
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
