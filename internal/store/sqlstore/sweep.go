package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// The retention sweep's statements (docs/data-lifecycle.md, "How the
// sweep runs"). Every walk reads an index in order and stops after its
// batch: finished deliveries by client and finish time
// (deliveries_finished), events by id, a client's records by id. Each
// batch is read from the read pool, then written in one transaction of
// the writer whose statements check again what the read found.
const (
	// expiredDeliveries takes the client, the cutoff and the batch size.
	expiredDeliveries = `SELECT id, event_id FROM deliveries WHERE client_id = ? AND state <> 'pending' AND updated_at < ?
		ORDER BY client_id, updated_at, id LIMIT ?`
	// finishedAfter takes the client, the cutoff, the cursor (at, at, id)
	// and the batch size.
	finishedAfter = `SELECT updated_at, id, event_id FROM deliveries WHERE client_id = ? AND state <> 'pending'
		AND updated_at < ? AND (updated_at > ? OR (updated_at = ? AND id > ?))
		ORDER BY client_id, updated_at, id LIMIT ?`
	// clearBodies' statements take the events' ids, then the cutoff: the
	// bodies go once every delivery of the event was delivered before the
	// cutoff (a pending or a failed one keeps them), and the destinations'
	// answers go with them.
	clearBodyOf = `UPDATE events SET payload = NULL, fhir = NULL WHERE id IN (%s) AND payload IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id AND (d.state <> 'delivered' OR d.updated_at >= ?))`
	clearAnswersOf = `UPDATE attempts SET response = NULL WHERE response IS NOT NULL AND delivery_id IN
		(SELECT d.id FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.id IN (%s) AND e.payload IS NULL)`
	// eventsAfter takes the cursor and the batch size.
	eventsAfter = `SELECT e.id, e.created_at, EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
		FROM events e WHERE e.id > ? ORDER BY e.id LIMIT ?`
	// recordsAfter takes the client, the cursor and the batch size. Whether
	// a record has a pending delivery is asked when it is marked.
	recordsAfter = `SELECT r.id, r.created_at, r.updated_at
		FROM records r WHERE r.client_id = ? AND r.id > ? ORDER BY r.client_id, r.id LIMIT ?`
	// getCursor and setCursor keep where a walk stopped, by client and
	// walk: a time and an id.
	getCursor = "SELECT at, id FROM retention_cursors WHERE client_id = ? AND walk = ?"
	setCursor = `INSERT INTO retention_cursors (client_id, walk, at, id) VALUES (?, ?, ?, ?)
		ON CONFLICT (client_id, walk) DO UPDATE SET at = excluded.at, id = excluded.id`
	// pendingKept counts the pending deliveries by destination.
	pendingKept = "SELECT client_id, destination, count(*) FROM deliveries WHERE state = 'pending' GROUP BY client_id, destination"
)

// sweepClients lists the clients with finished deliveries.
var sweepClients = clientsOf("deliveries", "state <> 'pending'") + " SELECT id FROM c WHERE id IS NOT NULL"

// clientsOf is a WITH clause whose table c lists, in id's column, the
// clients of table's rows that hold cond ("": all), then a NULL: one probe
// per client down an index that leads with client_id (a skip scan both
// databases run as written), however many rows each client has.
func clientsOf(table, cond string) string {
	where, and := "", " WHERE "
	if cond != "" {
		where, and = " WHERE "+cond, " WHERE "+cond+" AND "
	}
	return `WITH RECURSIVE c(id) AS (
		SELECT (SELECT client_id FROM ` + table + where + ` ORDER BY client_id LIMIT 1)
		UNION ALL
		SELECT (SELECT client_id FROM ` + table + and + `client_id > c.id ORDER BY client_id LIMIT 1)
		FROM c WHERE c.id IS NOT NULL)`
}

// Sweep removes one batch of each kind of what r's retention says has
// expired (store.Lifecycle.Sweep): per client, finished deliveries past
// `deliveries` (with their attempts, and their events once no delivery is
// left) and the bodies of events whose deliveries all ended past
// `bodies`; events that never had a delivery, past the longest
// `deliveries`; per client with a `records` retention, records not saved
// since and with nothing pending.
func (s *Shared) Sweep(ctx context.Context, r store.SweepRequest) (store.Swept, error) {
	var out store.Swept
	for _, c := range r.Clients {
		ret := r.Retention(c)
		// Records first: an expired record goes with its events and
		// deliveries in one batch, which the walk of deliveries then
		// need not read.
		if ret.Records > 0 {
			if err := s.expireRecords(ctx, c, r.Now.Add(-ret.Records), r.Batch, &out); err != nil {
				return out, fmt.Errorf("sweep records: %w", err)
			}
		}
		if err := s.expireDeliveries(ctx, c, r.Now.Add(-ret.Deliveries), r.Batch, &out); err != nil {
			return out, fmt.Errorf("sweep deliveries: %w", err)
		}
		if ret.Bodies >= ret.Deliveries {
			continue // the deliveries' expiry takes the events, bodies and all
		}
		if err := s.clearBodies(ctx, c, r.Now.Add(-ret.Bodies), r.Batch, &out); err != nil {
			return out, fmt.Errorf("sweep bodies: %w", err)
		}
	}
	longest := r.Retention("").Deliveries
	for _, c := range r.Clients {
		longest = max(longest, r.Retention(c).Deliveries)
	}
	if err := s.expireLoneEvents(ctx, r.Now.Add(-longest), r.Batch, &out); err != nil {
		return out, fmt.Errorf("sweep events: %w", err)
	}
	return out, nil
}

// SweptClients lists the clients with finished deliveries
// (store.Lifecycle.SweptClients).
func (s *Shared) SweptClients(ctx context.Context) ([]string, error) {
	out, err := queryAll(ctx, s.db, func(sc Scanner) (string, error) {
		var id string
		err := sc.Scan(&id)
		return id, err
	}, sweepClients)
	if err != nil {
		return nil, fmt.Errorf("swept clients: %w", err)
	}
	return out, nil
}

func (s *Shared) expireDeliveries(ctx context.Context, client string, cutoff time.Time, batch int, out *store.Swept) error {
	type row struct{ id, event int64 }
	rows, err := queryAll(ctx, s.db, func(sc Scanner) (row, error) {
		var r row
		err := sc.Scan(&r.id, &r.event)
		return r, err
	}, expiredDeliveries, client, cutoff.UnixNano(), batch)
	if err != nil || len(rows) == 0 {
		return err
	}
	out.More = out.More || len(rows) == batch
	ids, events := make([]any, 0, len(rows)), make([]int64, 0, len(rows))
	for _, r := range rows {
		ids, events = append(ids, r.id), append(events, r.event)
	}
	slices.Sort(events)
	events = slices.Compact(events)
	// Checked again as they are removed: a replay meanwhile made one
	// pending, and it stays.
	list, ids := inList(ids)
	expired := "id IN (" + list + ") AND state <> 'pending' AND updated_at < ?"
	args := append(ids, cutoff.UnixNano())
	eventList, eventArgs := inList(anys(events))
	n, err := s.db.WriteBeside(ctx,
		Stmt{"DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE " + expired + ")", args},
		Stmt{"DELETE FROM deliveries WHERE " + expired, args},
		Stmt{"DELETE FROM events WHERE id IN (" + eventList +
			") AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)", eventArgs},
	)
	if err != nil {
		return err
	}
	out.Attempts += int(n[0])
	out.Deliveries += int(n[1])
	out.Events += int(n[2])
	return nil
}

// clearBodies walks a client's finished deliveries in the order they
// finished, from where the last pass stopped, and removes the bodies of
// their events once every delivery of the event was delivered before
// cutoff. An event passed over (a delivery of it pending or failed) comes
// round again when that delivery finishes, or goes with its last delivery.
func (s *Shared) clearBodies(ctx context.Context, client string, cutoff time.Time, batch int, out *store.Swept) error {
	at, last, err := s.cursor(ctx, client, "bodies")
	if err != nil {
		return err
	}
	var events []int64
	n := 0
	err = eachRow(ctx, s.db, func(sc Scanner) error {
		var event int64
		n++
		err := sc.Scan(&at, &last, &event)
		events = append(events, event)
		return err
	}, finishedAfter, client, cutoff.UnixNano(), at, at, last, batch)
	if err != nil || n == 0 {
		return err
	}
	out.More = out.More || n == batch
	slices.Sort(events)
	events = slices.Compact(events)
	in, args := inList(anys(events))
	changed, err := s.db.WriteBeside(ctx,
		Stmt{fmt.Sprintf(clearBodyOf, in), append(slices.Clone(args), cutoff.UnixNano())},
		Stmt{fmt.Sprintf(clearAnswersOf, in), args},
		Stmt{setCursor, []any{client, "bodies", at, last}})
	if err != nil {
		return err
	}
	out.Bodies += int(changed[0])
	return nil
}

// expireLoneEvents removes the events that never had a delivery (no
// destination for their funnel's environment) once raised before cutoff.
// The walk passes the events that have deliveries: their last delivery's
// expiry takes them.
func (s *Shared) expireLoneEvents(ctx context.Context, cutoff time.Time, batch int, out *store.Swept) error {
	_, last, err := s.cursor(ctx, "", "events")
	if err != nil {
		return err
	}
	var lone []any
	n, stop := 0, false
	err = eachRow(ctx, s.db, func(sc Scanner) error {
		var id, created int64
		var delivered bool
		if err := sc.Scan(&id, &created, &delivered); err != nil {
			return err
		}
		if stop || created >= cutoff.UnixNano() {
			stop = true // the walk goes on from here once these have expired
			return nil
		}
		n++
		last = id
		if !delivered {
			lone = append(lone, id)
		}
		return nil
	}, eventsAfter, last, batch)
	if err != nil || n == 0 {
		return err
	}
	out.More = out.More || n == batch
	stmts := []Stmt{{setCursor, []any{"", "events", 0, last}}}
	if len(lone) > 0 {
		list, args := inList(lone)
		stmts = append(stmts, Stmt{"DELETE FROM events WHERE id IN (" + list +
			") AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)", args})
	}
	changed, err := s.db.WriteBeside(ctx, stmts...)
	if err != nil {
		return err
	}
	if len(lone) > 0 {
		out.Events += int(changed[1])
	}
	return nil
}

// expireRecords walks a client's records by id and erases those not
// saved since cutoff, unless one of their deliveries is pending. The walk
// starts over once it reaches a record created after cutoff (no later one
// can have expired) or the end.
func (s *Shared) expireRecords(ctx context.Context, client string, cutoff time.Time, batch int, out *store.Swept) error {
	_, last, err := s.cursor(ctx, client, "records")
	if err != nil {
		return err
	}
	var expired []any
	n, restart := 0, false
	err = eachRow(ctx, s.db, func(sc Scanner) error {
		var id, created, updated int64
		if err := sc.Scan(&id, &created, &updated); err != nil {
			return err
		}
		n++
		if restart || created >= cutoff.UnixNano() {
			restart = true
			return nil
		}
		last = id
		if updated < cutoff.UnixNano() {
			expired = append(expired, id)
		}
		return nil
	}, recordsAfter, client, last, batch)
	if err != nil {
		return err
	}
	if restart || n < batch {
		last = 0
	}
	out.More = out.More || (n == batch && !restart)
	stmts := []Stmt{{setCursor, []any{client, "records", 0, last}}}
	if len(expired) > 0 {
		list, ids := inList(expired)
		stmts = append(stmts, expireRecordsIn(list, ids, cutoff)...)
	}
	changed, err := s.db.WriteBeside(ctx, stmts...)
	if err != nil {
		return err
	}
	if len(expired) > 0 {
		n := changed[2:]
		out.Attempts += int(n[0])
		out.Deliveries += int(n[1])
		out.Events += int(n[2])
		out.Records += int(n[3])
	}
	return nil
}

// expireRecordsIn are the statements that remove the records of list
// (an IN list of ids, its arguments) not saved since cutoff and with nothing pending, with everything of them, in
// the order foreign keys allow:
//
//   - the mark: version negated, which no save holds (one that read the
//     record commits nothing and starts over). Its conditions are the
//     updated rows' own, not a subquery's: PostgreSQL checks a row it
//     waited for (a save under way) again against those only, and the
//     save's new updated_at then keeps it;
//   - the attempts of their deliveries that are not pending, those
//     deliveries, the events left with none, the records left with none;
//   - the mark undone on any record left.
//
// Each removal asks again that nothing it removes is pending, so that a
// replay (or a delivery added) that commits during the batch keeps its
// delivery, event and record: on PostgreSQL a statement sees what
// committed before it began, and a DELETE that waits for a row a replay
// changed checks the row's new state. Such a delivery may lose the
// record of its earlier attempts, if the replay came while they were
// being removed.
func expireRecordsIn(list string, ids []any, cutoff time.Time) []Stmt {
	marked := "r.version < 0 AND r.id IN (" + list + ")"
	events := "SELECT e.id FROM events e JOIN records r ON r.id = e.record_id WHERE " + marked
	return []Stmt{
		{`UPDATE records SET version = -version WHERE id IN (` + list + `) AND updated_at < ? AND version > 0 AND NOT EXISTS (` +
			pendingOf("records.id") + `)`, append(slices.Clone(ids), cutoff.UnixNano())},
		{"DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE event_id IN (" + events +
			") AND state <> 'pending')", ids},
		{"DELETE FROM deliveries WHERE event_id IN (" + events + ") AND state <> 'pending'", ids},
		{"DELETE FROM events WHERE id IN (" + events + ") AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)", ids},
		{"DELETE FROM records WHERE id IN (SELECT r.id FROM records r WHERE " + marked +
			") AND NOT EXISTS (SELECT 1 FROM events e WHERE e.record_id = records.id)", ids},
		{"UPDATE records SET version = -version WHERE id IN (" + list + ") AND version < 0", ids},
	}
}

// cursor returns where a walk stopped: (0, 0) at first.
func (s *Shared) cursor(ctx context.Context, client, walk string) (at, id int64, err error) {
	err = eachRow(ctx, s.db, func(sc Scanner) error { return sc.Scan(&at, &id) }, getCursor, client, walk)
	return at, id, err
}

// PendingKept counts the pending deliveries of each destination
// (store.Lifecycle.PendingKept).
func (s *Shared) PendingKept(ctx context.Context) ([]store.PendingKept, error) {
	out, err := queryAll(ctx, s.db, func(sc Scanner) (store.PendingKept, error) {
		var p store.PendingKept
		err := sc.Scan(&p.ClientID, &p.ID, &p.Deliveries)
		return p, err
	}, pendingKept)
	if err != nil {
		return nil, fmt.Errorf("pending kept: %w", err)
	}
	return out, nil
}

// inList returns the placeholders of an IN list of ids and its
// arguments, ids padded with their last to a power of two (16 at least):
// a batch's statements then take one of a few shapes, which PostgreSQL's
// statement caches keep, rather than one new shape per batch size, each
// prepared and kept on every connection that ran it.
func inList(ids []any) (string, []any) {
	n := 16
	for n < len(ids) {
		n *= 2
	}
	padded := slices.Grow(slices.Clone(ids), n-len(ids))
	for len(padded) < n {
		padded = append(padded, ids[len(ids)-1])
	}
	return placeholders(n), padded
}

// pendingOf finds a pending delivery of the record whose id is ref
// through the record's events (the state with an empty string appended
// keeps the planners off the index of pending deliveries, which would walk
// the whole backlog).
func pendingOf(ref string) string {
	return `SELECT 1 FROM events e JOIN deliveries d ON d.event_id = e.id WHERE e.record_id = ` + ref + ` AND d.state || '' = 'pending'`
}

// eachRow runs q on db and calls fn for each row.
func eachRow(ctx context.Context, db DB, fn func(Scanner) error, q string, args ...any) error {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func anys(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
