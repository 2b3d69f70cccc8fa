package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// The console's queries (store.Console), written with ? placeholders like
// the others. Each one is shaped for an index of migration 10: a page of
// deliveries is an ordered walk down (client_id, destination, state,
// created_at, id), (state, created_at, id) or (created_at, client_id,
// destination, state), whichever matches its filters, and stops after one
// page.

// states are the delivery states, for queries that take each in turn.
var states = []string{store.Pending, store.Delivered, store.Failed}

// DeliveryPage returns the query of a page of deliveries and its
// arguments; scanDeliveryRow reads its rows.
//
// A page of one destination's deliveries in any state is the union of
// three ordered walks, one per state, each stopping after a page:
// deliveries_by_destination orders deliveries by time only within a state.
func deliveryPage(q store.DeliveryQuery) (string, []any) {
	var page string
	var args []any
	if q.State == "" && q.ClientID != "" && q.Destination != "" && q.PatientUUID == "" && q.MessageID == "" {
		arms := make([]string, len(states))
		for i, st := range states {
			arm, a := deliveryIDs(q, st)
			arms[i] = "SELECT id, created_at FROM (" + arm + ") s" + string(rune('1'+i))
			args = append(args, a...)
		}
		page = "SELECT id, created_at FROM (" + strings.Join(arms, " UNION ALL ") + ") u ORDER BY created_at DESC, id DESC LIMIT ?"
		args = append(args, q.Limit)
	} else {
		page, args = deliveryIDs(q, q.State)
	}
	return "SELECT " + DeliveryColumns + " FROM (" + page + ") p JOIN deliveries d ON d.id = p.id" +
		" JOIN events e ON e.id = d.event_id JOIN records r ON r.id = e.record_id ORDER BY d.created_at DESC, d.id DESC", args
}

// patientRecords takes a patient uuid and selects the patient's records of
// every client: on SQLite one probe of the records' unique key (client,
// patient, assessment type) per client, the clients found by a skip scan
// of the same key; PostgreSQL's key leads with the patient
// (records_by_key), which it probes once. A save then writes no index of patient uuids alone (a random
// key, the dearest index entry a save made); the deliveries are found
// through the records' events (events_by_record, deliveries_by_event),
// not an index of deliveries by record.
var patientRecords = clientsOf("records", "") + " SELECT r.id FROM c JOIN records r ON r.client_id = c.id WHERE r.patient_uuid = ?"

// deliveryIDs selects the ids of a page of deliveries in state ("": any).
func deliveryIDs(q store.DeliveryQuery, state string) (string, []any) {
	var where []string
	var args []any
	eq := func(col string, v any) {
		if q.PatientUUID != "" {
			// A patient has a handful of deliveries, found through the
			// patient's records: as expressions the other filters only
			// sort them out, and cannot send the planner down a walk of
			// every pending delivery or every delivery of a destination.
			col += " || ''"
		}
		where = append(where, col+" = ?")
		args = append(args, v)
	}
	switch {
	case q.Destination != "" && q.ClientID == "":
		// A destination id of any client (ids may repeat across clients).
		eq("destination", q.Destination)
	case q.Destination != "":
		eq("client_id", q.ClientID)
		eq("destination", q.Destination)
	case q.ClientID != "":
		// As an equality, client_id would seek deliveries_by_destination,
		// which orders a client's deliveries by destination first: the
		// page would sort every one of them. As an expression it only
		// filters a walk in time order (of deliveries_by_created, which
		// holds client_id, or deliveries_by_state).
		where, args = append(where, "client_id || '' = ?"), append(args, q.ClientID)
	}
	if state != "" {
		eq("state", state)
	}
	if q.DataType != "" {
		eq("data_type", string(q.DataType))
	}
	if q.MessageID != "" {
		eq("message_id", q.MessageID)
	}
	if q.PatientUUID != "" {
		records := patientRecords
		if q.ClientID != "" {
			records = "SELECT id FROM records WHERE client_id = ? AND patient_uuid = ?"
			args = append(args, q.ClientID)
		}
		args = append(args, q.PatientUUID)
		where = append(where, "event_id IN (SELECT id FROM events WHERE record_id IN ("+records+"))")
	}
	if !q.From.IsZero() {
		where, args = append(where, "created_at >= ?"), append(args, q.From.UnixNano())
	}
	if !q.To.IsZero() {
		where, args = append(where, "created_at < ?"), append(args, q.To.UnixNano())
	}
	if c := q.After; c != nil {
		// The range bound lets the index seek; the OR only sorts out the
		// deliveries of the cursor's own nanosecond.
		at := c.CreatedAt.UnixNano()
		where, args = append(where, "created_at <= ? AND (created_at < ? OR id < ?)"), append(args, at, at, c.ID)
	}
	s := "SELECT id, created_at FROM deliveries"
	if len(where) > 0 {
		s += " WHERE " + strings.Join(where, " AND ")
	}
	return s + " ORDER BY created_at DESC, id DESC LIMIT ?", append(args, q.Limit)
}

const (
	// windowCounts takes the hour's start and the day's start; its rows are
	// client, destination, state, the day's count and the hour's count.
	windowCounts = `SELECT client_id, destination, state, count(*), sum(CASE WHEN created_at >= ? THEN 1 ELSE 0 END)
		FROM deliveries WHERE created_at >= ? GROUP BY client_id, destination, state`
	// oldestPending takes client and destination: one step down
	// deliveries_by_destination.
	oldestPending = `SELECT min(created_at) FROM deliveries WHERE client_id = ? AND destination = ? AND state = 'pending'`
	// throughputBuckets takes from, step, from, to; its rows are the
	// bucket's number, the state and the count.
	throughputBuckets = `SELECT (created_at - ?) / ?, state, count(*) FROM deliveries
		WHERE created_at >= ? AND created_at < ? GROUP BY 1, 2`
)

// recentAttempts returns the query of a destination's latest attempts
// since a time: those of its latest n deliveries of each state (three
// ordered walks of deliveries_by_destination), newest first, at most n.
// scanSample reads its rows.
func recentAttempts(ref store.DestinationRef, since time.Time, n int) (string, []any) {
	arms := make([]string, len(states))
	var args []any
	for i, st := range states {
		arms[i] = "SELECT id FROM (SELECT id FROM deliveries WHERE client_id = ? AND destination = ? AND state = ?" +
			" ORDER BY created_at DESC, id DESC LIMIT ?) s" + string(rune('1'+i))
		args = append(args, ref.ClientID, ref.ID, st, n)
	}
	return `SELECT a.delivery_id, a.series, a.number, a.owner, a.started_at, a.duration_ns, coalesce(a.status_code, 0),
		coalesce(a.error_class, '') FROM attempts a WHERE a.delivery_id IN (` + strings.Join(arms, " UNION ALL ") +
		") AND a.started_at >= ? ORDER BY a.started_at DESC, a.id DESC LIMIT ?", append(args, since.UnixNano(), n)
}

// scanSample reads a recentAttempts row.
func scanSample(sc Scanner) (store.Attempt, error) {
	var a store.Attempt
	var started, dur int64
	err := sc.Scan(&a.DeliveryID, &a.Series, &a.Number, &a.Owner, &started, &dur, &a.StatusCode, &a.ErrorClass)
	a.StartedAt, a.Duration = time.Unix(0, started).UTC(), time.Duration(dur)
	return a, err
}

// countReplay returns the query counting what a Replay of r by selection
// would change.
func countReplay(r store.ReplayRequest) (string, []any) {
	where, args := replayed(r)
	return "SELECT count(*) FROM deliveries WHERE " + where, args
}

// auditPage returns the query of a page of the audit log; scanAudit reads
// its rows.
func auditPage(q store.AuditQuery) (string, []any) {
	var where []string
	var args []any
	if q.Actor != "" {
		where, args = append(where, "actor = ?"), append(args, q.Actor)
	}
	if q.Action != "" {
		where, args = append(where, "action = ?"), append(args, q.Action)
	}
	if q.Before > 0 {
		where, args = append(where, "id < ?"), append(args, q.Before)
	}
	s := "SELECT id, at, actor, action, target FROM audit"
	if len(where) > 0 {
		s += " WHERE " + strings.Join(where, " AND ")
	}
	return s + " ORDER BY id DESC LIMIT ?", append(args, q.Limit)
}

// emptyBuckets makes the empty buckets of [from, to) by step, for the rows of
// throughputBuckets to fill with fill.
func emptyBuckets(from, to time.Time, step time.Duration) []store.ThroughputBucket {
	n := int((to.Sub(from) + step - 1) / step)
	out := make([]store.ThroughputBucket, max(n, 0))
	for i := range out {
		out[i].Start = from.Add(time.Duration(i) * step).UTC()
	}
	return out
}

// fill adds a throughputBuckets row to its bucket.
func fill(buckets []store.ThroughputBucket, bucket int64, state string, n int) {
	if bucket >= 0 && bucket < int64(len(buckets)) {
		buckets[bucket].Add(state, n)
	}
}

// stats collects the rows of windowCounts, adding known destinations
// without deliveries, in the order of client and destination.
type stats struct {
	byRef map[store.DestinationRef]*store.DestinationStats
	order []store.DestinationRef
}

// newStats starts with every destination of known.
func newStats(known []store.DestinationRef) *stats {
	s := &stats{byRef: map[store.DestinationRef]*store.DestinationStats{}}
	for _, ref := range known {
		s.get(ref)
	}
	return s
}

// get returns the destination's stats, adding them if new.
func (s *stats) get(ref store.DestinationRef) *store.DestinationStats {
	if st, ok := s.byRef[ref]; ok {
		return st
	}
	st := &store.DestinationStats{DestinationRef: ref}
	s.byRef[ref] = st
	s.order = append(s.order, ref)
	return st
}

// refs lists the destinations, by client then destination id.
func (s *stats) refs() []store.DestinationRef {
	out := append([]store.DestinationRef(nil), s.order...)
	slices.SortFunc(out, func(a, b store.DestinationRef) int {
		return cmp.Or(strings.Compare(a.ClientID, b.ClientID), strings.Compare(a.ID, b.ID))
	})
	return out
}

// all returns every destination's stats in the order of refs.
func (s *stats) all() []store.DestinationStats {
	refs := s.refs()
	out := make([]store.DestinationStats, len(refs))
	for i, ref := range refs {
		out[i] = *s.byRef[ref]
	}
	return out
}

// DeliveryPage returns a page of deliveries, newest first.
func (s *Shared) DeliveryPage(ctx context.Context, q store.DeliveryQuery) ([]store.Delivery, error) {
	query, args := deliveryPage(q)
	out, err := queryAll(ctx, s.db, scanDeliveryRow, query, args...)
	if err != nil {
		return nil, fmt.Errorf("delivery page: %w", err)
	}
	return out, nil
}

// DestinationStats returns the health of each destination.
func (s *Shared) DestinationStats(ctx context.Context, q store.StatsQuery) ([]store.DestinationStats, error) {
	st := newStats(q.Destinations)
	if err := s.windowCounts(ctx, st, q.Now); err != nil {
		return nil, fmt.Errorf("destination stats: %w", err)
	}
	for _, ref := range st.refs() {
		ds := st.get(ref)
		var oldest sql.NullInt64
		if err := s.db.QueryRow(ctx, oldestPending, ref.ClientID, ref.ID).Scan(&oldest); err != nil {
			return nil, fmt.Errorf("destination stats: %w", err)
		}
		ds.OldestPending = fromNull(oldest)
		if q.Samples > 0 {
			query, args := recentAttempts(ref, q.Now.Add(-24*time.Hour), q.Samples)
			var err error
			if ds.Recent, err = queryAll(ctx, s.db, scanSample, query, args...); err != nil {
				return nil, fmt.Errorf("destination stats: %w", err)
			}
		}
	}
	return st.all(), nil
}

// windowCounts adds the counts of the hour and the day before now.
func (s *Shared) windowCounts(ctx context.Context, st *stats, now time.Time) error {
	rows, err := s.db.Query(ctx, windowCounts, now.Add(-time.Hour).UnixNano(), now.Add(-24*time.Hour).UnixNano())
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ref store.DestinationRef
		var state string
		var day, hour int
		if err := rows.Scan(&ref.ClientID, &ref.ID, &state, &day, &hour); err != nil {
			return err
		}
		ds := st.get(ref)
		ds.Day.Add(state, day)
		ds.Hour.Add(state, hour)
	}
	return rows.Err()
}

// Throughput counts the deliveries created per step by state.
func (s *Shared) Throughput(ctx context.Context, from, to time.Time, step time.Duration) ([]store.ThroughputBucket, error) {
	buckets := emptyBuckets(from, to, step)
	rows, err := s.db.Query(ctx, throughputBuckets, from.UnixNano(), int64(step), from.UnixNano(), to.UnixNano())
	if err != nil {
		return nil, fmt.Errorf("throughput: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var bucket int64
		var state string
		var n int
		if err := rows.Scan(&bucket, &state, &n); err != nil {
			return nil, fmt.Errorf("throughput: %w", err)
		}
		fill(buckets, bucket, state, n)
	}
	return buckets, rows.Err()
}

// CountReplay counts what a replay by selection would change.
func (s *Shared) CountReplay(ctx context.Context, r store.ReplayRequest) (int, error) {
	query, args := countReplay(r)
	var n int
	if err := s.db.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count replay: %w", err)
	}
	return n, nil
}

// AuditPage returns a page of the audit log, newest first.
func (s *Shared) AuditPage(ctx context.Context, q store.AuditQuery) ([]store.AuditEntry, error) {
	query, args := auditPage(q)
	out, err := queryAll(ctx, s.db, scanAudit, query, args...)
	if err != nil {
		return nil, fmt.Errorf("audit page: %w", err)
	}
	return out, nil
}
