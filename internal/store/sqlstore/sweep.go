package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// ErrSweepBusy is what a driver's sweep transaction returns when another
// process is sweeping (PostgreSQL's advisory lock is taken).
var ErrSweepBusy = errors.New("another process is sweeping")

// SweepTx runs fn in one write transaction of a driver, while no other
// process sweeps: ErrSweepBusy otherwise.
type SweepTx func(ctx context.Context, fn func(ctx context.Context, q Querier) error) error

// The retention sweep's statements (docs/data-lifecycle.md, "How the
// sweep runs"). Every walk reads an index in order and stops after its
// batch: finished deliveries by client and finish time
// (deliveries_finished), events by id, a client's records by id.
const (
	// sweepClients lists the clients with finished deliveries, one index
	// probe per client (a skip scan both databases run as written).
	sweepClients = `WITH RECURSIVE c(id) AS (
		SELECT (SELECT client_id FROM deliveries WHERE state <> 'pending' ORDER BY client_id LIMIT 1)
		UNION ALL
		SELECT (SELECT client_id FROM deliveries WHERE state <> 'pending' AND client_id > c.id ORDER BY client_id LIMIT 1)
		FROM c WHERE c.id IS NOT NULL)
		SELECT id FROM c WHERE id IS NOT NULL`
	// expiredDeliveries takes the client, the cutoff and the batch size.
	expiredDeliveries = `SELECT id, event_id FROM deliveries WHERE client_id = ? AND state <> 'pending' AND updated_at < ?
		ORDER BY client_id, updated_at, id LIMIT ?`
	// finishedAfter takes the client, the cutoff, the cursor (at, at, id)
	// and the batch size.
	finishedAfter = `SELECT updated_at, id, event_id FROM deliveries WHERE client_id = ? AND state <> 'pending'
		AND updated_at < ? AND (updated_at > ? OR (updated_at = ? AND id > ?))
		ORDER BY client_id, updated_at, id LIMIT ?`
	// clearBody takes the event id and the cutoff: the body goes once every
	// delivery of the event was delivered before the cutoff (a pending or
	// a failed one keeps it).
	clearBody = `UPDATE events SET payload = NULL, fhir = NULL WHERE id = ? AND payload IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id AND (d.state <> 'delivered' OR d.updated_at >= ?))`
	// clearAnswers takes the event id.
	clearAnswers = `UPDATE attempts SET response = NULL WHERE response IS NOT NULL
		AND delivery_id IN (SELECT id FROM deliveries WHERE event_id = ?)`
	// eventsAfter takes the cursor and the batch size.
	eventsAfter = `SELECT e.id, e.created_at, EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
		FROM events e WHERE e.id > ? ORDER BY e.id LIMIT ?`
	// recordsAfter takes the client, the cursor and the batch size.
	recordsAfter = "SELECT id, created_at, updated_at FROM records WHERE client_id = ? AND id > ? ORDER BY client_id, id LIMIT ?"
	// getCursor and setCursor keep where a walk stopped, by client and
	// walk: a time and an id.
	getCursor = "SELECT at, id FROM retention_cursors WHERE client_id = ? AND walk = ?"
	setCursor = `INSERT INTO retention_cursors (client_id, walk, at, id) VALUES (?, ?, ?, ?)
		ON CONFLICT (client_id, walk) DO UPDATE SET at = excluded.at, id = excluded.id`
	// pendingKept counts the pending deliveries by destination.
	pendingKept = "SELECT client_id, destination, count(*) FROM deliveries WHERE state = 'pending' GROUP BY client_id, destination"
)

// Sweep removes, through inTx, one batch of each kind of what r's
// retention says has expired: per client, finished deliveries past
// `deliveries` (with their attempts, and their events once no delivery is
// left) and the bodies of events whose deliveries all ended past
// `bodies`; events that never had a delivery, past the longest
// `deliveries`; per client with a `records` retention, records not saved
// since. Each batch is its own transaction. Busy is set when another
// process sweeps.
func Sweep(ctx context.Context, inTx SweepTx, d Dialect, r store.SweepRequest) (store.Swept, error) {
	var out store.Swept
	clients, err := sweptClients(ctx, inTx, r.Clients)
	if err != nil {
		return sweepEnd(out, err)
	}
	for _, c := range clients {
		ret := r.Retention(c)
		if err := inTx(ctx, func(ctx context.Context, q Querier) error {
			return expireDeliveries(ctx, q, d, c, r.Now.Add(-ret.Deliveries), r.Batch, &out)
		}); err != nil {
			return sweepEnd(out, err)
		}
		if err := inTx(ctx, func(ctx context.Context, q Querier) error {
			return clearBodies(ctx, q, c, r.Now.Add(-ret.Bodies), r.Batch, &out)
		}); err != nil {
			return sweepEnd(out, err)
		}
	}
	longest := r.Retention("").Deliveries
	for _, c := range r.Clients {
		longest = max(longest, r.Retention(c).Deliveries)
	}
	if err := inTx(ctx, func(ctx context.Context, q Querier) error {
		return expireLoneEvents(ctx, q, r.Now.Add(-longest), r.Batch, &out)
	}); err != nil {
		return sweepEnd(out, err)
	}
	for _, c := range r.Clients {
		if keep := r.Retention(c).Records; keep > 0 {
			if err := inTx(ctx, func(ctx context.Context, q Querier) error {
				return expireRecords(ctx, q, d, c, r.Now.Add(-keep), r.Batch, &out)
			}); err != nil {
				return sweepEnd(out, err)
			}
		}
	}
	return out, nil
}

func sweepEnd(out store.Swept, err error) (store.Swept, error) {
	if errors.Is(err, ErrSweepBusy) {
		out.Busy = true
		return out, nil
	}
	return out, fmt.Errorf("sweep: %w", err)
}

// sweptClients are the clients of the config and those with finished
// deliveries (a client removed from the config is swept with the
// defaults), sorted.
func sweptClients(ctx context.Context, inTx SweepTx, config []string) ([]string, error) {
	clients := slices.Clone(config)
	err := inTx(ctx, func(ctx context.Context, q Querier) error {
		clients = slices.Clone(config)
		return q.Each(ctx, sweepClients, func(sc Scanner) error {
			var id string
			err := sc.Scan(&id)
			clients = append(clients, id)
			return err
		})
	})
	slices.Sort(clients)
	return slices.Compact(clients), err
}

func expireDeliveries(ctx context.Context, q Querier, d Dialect, client string, cutoff time.Time, batch int, out *store.Swept) error {
	var ids []any
	var events []int64
	err := q.Each(ctx, expiredDeliveries+d.Lock, func(sc Scanner) error {
		var id, event int64
		err := sc.Scan(&id, &event)
		ids, events = append(ids, id), append(events, event)
		return err
	}, client, cutoff.UnixNano(), batch)
	if err != nil || len(ids) == 0 {
		return err
	}
	out.More = out.More || len(ids) == batch
	in := "(" + Placeholders(len(ids)) + ")"
	n, err := q.Exec(ctx, "DELETE FROM attempts WHERE delivery_id IN "+in, ids...)
	out.Attempts += int(n)
	if err != nil {
		return err
	}
	n, err = q.Exec(ctx, "DELETE FROM deliveries WHERE id IN "+in, ids...)
	out.Deliveries += int(n)
	if err != nil {
		return err
	}
	slices.Sort(events)
	events = slices.Compact(events)
	n, err = q.Exec(ctx, "DELETE FROM events WHERE id IN ("+Placeholders(len(events))+
		") AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)", anys(events)...)
	out.Events += int(n)
	return err
}

func clearBodies(ctx context.Context, q Querier, client string, cutoff time.Time, batch int, out *store.Swept) error {
	at, last, err := cursor(ctx, q, client, "bodies")
	if err != nil {
		return err
	}
	var events []int64
	rows := 0
	err = q.Each(ctx, finishedAfter, func(sc Scanner) error {
		var event int64
		rows++
		err := sc.Scan(&at, &last, &event)
		events = append(events, event)
		return err
	}, client, cutoff.UnixNano(), at, at, last, batch)
	if err != nil || rows == 0 {
		return err
	}
	out.More = out.More || rows == batch
	slices.Sort(events)
	for _, e := range slices.Compact(events) {
		n, err := q.Exec(ctx, clearBody, e, cutoff.UnixNano())
		if err != nil {
			return err
		}
		if n == 1 {
			out.Bodies++
			if _, err := q.Exec(ctx, clearAnswers, e); err != nil {
				return err
			}
		}
	}
	_, err = q.Exec(ctx, setCursor, client, "bodies", at, last)
	return err
}

// expireLoneEvents removes the events that never had a delivery, once
// raised before cutoff; the walk passes events that have deliveries
// (their last delivery's expiry takes them).
func expireLoneEvents(ctx context.Context, q Querier, cutoff time.Time, batch int, out *store.Swept) error {
	_, last, err := cursor(ctx, q, "", "events")
	if err != nil {
		return err
	}
	var lone []any
	rows, done := 0, false
	err = q.Each(ctx, eventsAfter, func(sc Scanner) error {
		var id, created int64
		var delivered bool
		if err := sc.Scan(&id, &created, &delivered); err != nil {
			return err
		}
		if done || created >= cutoff.UnixNano() {
			done = true // the walk goes on from here once it has expired
			return nil
		}
		rows++
		last = id
		if !delivered {
			lone = append(lone, id)
		}
		return nil
	}, last, batch)
	if err != nil || rows == 0 {
		return err
	}
	out.More = out.More || rows == batch
	if len(lone) > 0 {
		n, err := q.Exec(ctx, "DELETE FROM events WHERE id IN ("+Placeholders(len(lone))+
			") AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)", lone...)
		out.Events += int(n)
		if err != nil {
			return err
		}
	}
	_, err = q.Exec(ctx, setCursor, "", "events", 0, last)
	return err
}

// expireRecords walks a client's records by id and erases those not
// saved since cutoff, unless one of their deliveries is pending. The walk
// starts over once it reaches a record created after cutoff (no later one
// can have expired) or the end.
func expireRecords(ctx context.Context, q Querier, d Dialect, client string, cutoff time.Time, batch int, out *store.Swept) error {
	_, last, err := cursor(ctx, q, client, "records")
	if err != nil {
		return err
	}
	var expired []int64
	rows, restart := 0, false
	err = q.Each(ctx, recordsAfter+d.Lock, func(sc Scanner) error {
		var id, created, updated int64
		if err := sc.Scan(&id, &created, &updated); err != nil {
			return err
		}
		rows++
		if restart || created >= cutoff.UnixNano() {
			restart = true
			return nil
		}
		last = id
		if updated < cutoff.UnixNano() {
			expired = append(expired, id)
		}
		return nil
	}, client, last, batch)
	if err != nil {
		return err
	}
	if restart || rows < batch {
		last = 0
	}
	out.More = out.More || (rows == batch && !restart)
	for _, id := range expired {
		var n store.Erased
		var pending int
		err := q.Each(ctx, countCancelled, func(sc Scanner) error { return sc.Scan(&pending) }, id)
		if err != nil {
			return err
		}
		if pending > 0 {
			continue // what pads acknowledged it delivers first
		}
		if err := eraseRecord(ctx, q, id, &n); err != nil {
			return err
		}
		out.Records += n.Records
		out.Events += n.Events
		out.Deliveries += n.Deliveries
		out.Attempts += n.Attempts
	}
	_, err = q.Exec(ctx, setCursor, client, "records", 0, last)
	return err
}

func anys(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// cursor returns where a walk stopped: (0, 0) at first.
func cursor(ctx context.Context, q Querier, client, walk string) (at, id int64, err error) {
	err = q.Each(ctx, getCursor, func(sc Scanner) error { return sc.Scan(&at, &id) }, client, walk)
	return at, id, err
}

// PendingKept counts, through q, the pending deliveries of each
// destination: what retention keeps because pads has not delivered it.
func PendingKept(ctx context.Context, q Querier) ([]store.PendingKept, error) {
	var out []store.PendingKept
	err := q.Each(ctx, pendingKept, func(sc Scanner) error {
		var p store.PendingKept
		err := sc.Scan(&p.ClientID, &p.ID, &p.Deliveries)
		out = append(out, p)
		return err
	})
	return out, err
}
