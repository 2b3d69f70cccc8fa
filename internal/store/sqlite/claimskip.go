package sqlite

import (
	"fmt"
	"strings"

	"github.com/pads-dev/pads/internal/store"
)

// skippingClaim is the claim of req when it skips destinations (full
// lines, paused destinations, those waiting for their rate's next token)
// or caps what each may get (store.ClaimRequest.ByDestination):
// the same answer as the walk in due order of claim (the first due
// deliveries in (next_at, id) order of the destinations not skipped,
// per-record order kept), without reading the skipped destinations' due
// backlog, which that walk reads first (each claim, on the writer, behind
// the saves):
//
//   - dests: each destination with a pending delivery, a few seeks down
//     deliveries_due_by_destination per destination (a skip scan);
//   - heads: the first claimable delivery of each destination not
//     skipped, one probe each, and of those the first limit: only their
//     destinations can have a delivery among the first limit;
//   - picked: of each head's destination, its claimable deliveries up to
//     the limit-th head (none after it can be among the first limit), at
//     most limit of them (SQLite's LIMIT cannot name the head's rank) and
//     at most its room, merged, the first limit.
//
// It reads a few index entries per destination with pending
// deliveries and, beyond the limit, at most limit*limit rows however many
// are due. INDEXED BY holds each walk to the index by destination,
// whatever the statistics say. It returns the statement (an UPDATE
// returning the ids it leased) and its arguments.
func skippingClaim(req *store.ClaimRequest) (string, []any) {
	other := req.Limit
	if req.OtherRoom > 0 {
		other = req.OtherRoom
	}
	args := []any{req.Owner, req.LeaseUntil.UnixNano(), req.Now.UnixNano(), max(req.Limit, 1), max(other, 1)}
	values := func(refs []store.DestinationRef) string {
		var b strings.Builder
		for i, r := range refs {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(?%d, ?%d)", len(args)+1, len(args)+2)
			args = append(args, r.ClientID, r.ID)
		}
		return b.String()
	}
	skip := ""
	if len(req.Skip) > 0 {
		skip = " AND (client_id, destination) NOT IN (VALUES " + values(req.Skip) + ")"
	}
	unordered := "0"
	if len(req.Unordered) > 0 {
		unordered = "(client_id, destination) IN (VALUES " + values(req.Unordered) + ")"
	}
	room := "?5"
	if len(req.Room) > 0 {
		var b strings.Builder
		for i, r := range req.Room {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(?%d, ?%d, ?%d)", len(args)+1, len(args)+2, len(args)+3)
			args = append(args, r.ClientID, r.ID, max(r.N, 1))
		}
		room = "coalesce((SELECT column3 FROM (VALUES " + b.String() + ") WHERE column1 = client_id AND column2 = destination), ?5)"
	}
	// The step from a destination to the next: its client's next
	// destination, or the next client's first; each a seek (a row-value
	// comparison would seek only by client and walk the destination's
	// deliveries).
	const (
		walk     = "FROM deliveries x INDEXED BY deliveries_due_by_destination WHERE x.state = 'pending' AND "
		sameNext = "(SELECT x.destination " + walk + "x.client_id = t.client_id AND x.destination > t.destination ORDER BY x.destination LIMIT 1)"
		client   = "(SELECT x.client_id " + walk + "x.client_id > t.client_id ORDER BY x.client_id LIMIT 1)"
	)
	q := `WITH RECURSIVE dests (client_id, destination) AS (
		SELECT client_id, destination FROM (SELECT client_id, destination FROM deliveries INDEXED BY deliveries_due_by_destination
			WHERE state = 'pending' ORDER BY client_id, destination LIMIT 1)
		UNION ALL
		SELECT CASE WHEN ` + sameNext + ` IS NULL THEN ` + client + ` ELSE t.client_id END,
			coalesce(` + sameNext + `, (SELECT x.destination ` + walk + `x.client_id = ` + client + ` ORDER BY x.destination LIMIT 1))
		FROM dests t WHERE t.destination IS NOT NULL),
	heads AS MATERIALIZED (SELECT h.client_id, h.destination, h.unordered, h.room, f.next_at, f.id,
			row_number() OVER (ORDER BY f.next_at, f.id) AS k
		FROM (SELECT client_id, destination, ` + unordered + ` AS unordered, ` + room + ` AS room FROM dests
			WHERE destination IS NOT NULL` + skip + `) h
		JOIN deliveries f ON f.id = (SELECT c.id FROM deliveries c INDEXED BY deliveries_due_by_destination WHERE ` + claimable + `
			ORDER BY c.next_at, c.id LIMIT 1)
		ORDER BY f.next_at, f.id LIMIT ?4),
	last AS MATERIALIZED (SELECT coalesce((SELECT next_at FROM heads WHERE k = ?4), 9223372036854775807) AS next_at,
		coalesce((SELECT id FROM heads WHERE k = ?4), 9223372036854775807) AS id),
	picked AS (SELECT d.id FROM heads h JOIN deliveries d ON d.id IN (SELECT id FROM (
			SELECT c.id, row_number() OVER (ORDER BY c.next_at, c.id) AS n
			FROM last l, deliveries c INDEXED BY deliveries_due_by_destination WHERE ` + claimable + `
				AND (c.next_at, c.id) <= (l.next_at, l.id) ORDER BY c.next_at, c.id LIMIT ?4) WHERE n <= h.room)
		ORDER BY d.next_at, d.id LIMIT ?4)
	UPDATE deliveries SET ` + claimSet + ` WHERE id IN (SELECT id FROM picked) RETURNING id`
	return q, args
}

const (
	// claimSet leases a claimed delivery (?1 owner, ?2 lease end): next_at
	// moves to the lease's end, due_at keeps when it was due (migration
	// 0110).
	claimSet = "lease_owner = ?1, lease_until = ?2, next_at = ?2, due_at = coalesce(due_at, nullif(next_at, 0), created_at)"
	// claimable is a pending delivery c of destination h due at ?3, not
	// leased, and the first pending one of its record to h unless h is
	// unordered.
	claimable = `c.client_id = h.client_id AND c.destination = h.destination AND c.state = 'pending'
			AND c.next_at <= ?3 AND (c.lease_until IS NULL OR c.lease_until <= ?3)
			AND (h.unordered OR NOT EXISTS (SELECT 1 FROM deliveries p WHERE p.record_id = c.record_id
				AND p.destination = c.destination AND p.state = 'pending' AND p.event_id < c.event_id AND p.client_id = c.client_id))`
)
