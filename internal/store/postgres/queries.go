package postgres

import "github.com/pads-dev/pads/internal/store/sqlstore"

// The statements the store runs on every save and delivery, named so that
// TestEveryLookupIsAnIndexProbe can EXPLAIN exactly these.
const (
	selectRow = "SELECT " + sqlstore.RowColumns + " FROM records"

	// qFindByKey takes client, patient uuid, assessment type.
	qFindByKey = selectRow + " WHERE client_id = $1 AND patient_uuid = $2 AND assessment_type = $3"
	// qFindByEmail takes client, assessment type, the email's indexes.
	qFindByEmail = selectRow + ` WHERE client_id = $1 AND assessment_type = $2 AND email_index = ANY($3)
		ORDER BY updated_at DESC, id DESC LIMIT 1`
	// qLockEmail takes the name of the lock (see tx.ByEmail).
	qLockEmail = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
	// qVersionByEmail is qFindByEmail for the key and version only.
	qVersionByEmail = `SELECT patient_uuid, version FROM records WHERE client_id = $1 AND assessment_type = $2 AND email_index = ANY($3)
		ORDER BY updated_at DESC, id DESC LIMIT 1`
	qInsertRecord = `INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, version,
		created_at, updated_at, form_completed_at, assessment_completed_at) VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10)
		ON CONFLICT (client_id, patient_uuid, assessment_type) DO NOTHING RETURNING id`
	qUpdateRecord = `UPDATE records SET funnel_id = $1, email_index = $2, sealed = $3, version = version + 1,
		updated_at = $4, form_completed_at = $5, assessment_completed_at = $6
		WHERE client_id = $7 AND patient_uuid = $8 AND assessment_type = $9 AND version = $10 RETURNING id`
	// qRewriteRecord is qUpdateRecord leaving the email index alone: no
	// indexed column changes, so PostgreSQL can update the row in place (a
	// heap-only tuple) without touching an index.
	qRewriteRecord = `UPDATE records SET funnel_id = $1, sealed = $2, version = version + 1, updated_at = $3,
		form_completed_at = $4, assessment_completed_at = $5
		WHERE client_id = $6 AND patient_uuid = $7 AND assessment_type = $8 AND version = $9 RETURNING id`
	qInsertEvent    = "INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload, fhir, snapshot) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id"
	qInsertDelivery = `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
		next_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $10, $11) RETURNING id`

	// qClaimLimit, with the limit written in (see claimQuery), takes
	// owner, lease end, now, the destinations to skip and those without
	// per-record order, as "client/id" (neither id can hold a '/'). It walks the pending deliveries in (next_at,
	// id) order down their index and stops at the limit: the skip is a
	// filter on that walk, not a join, which would read every due delivery
	// first. A delivery waits while its record has an earlier delivery
	// pending to the same destination (per-record order), unless the
	// destination is unordered: it goes only if it is the first pending
	// one of its record to its destination, one probe of the first entry
	// of deliveries_by_record. next_at moves to the lease's end, as in
	// the SQLite store. SKIP LOCKED lets processes claim side by side
	// without waiting on each other's rows.
	//
	// Both walks are ordered ones, and the claim runs with sorts disabled
	// (sortless), so that the planner takes them whatever its statistics
	// say. Most deliveries are delivered, so the statistics usually say
	// that almost none is pending; the planner then preferred to find the
	// pending ones through deliveries_by_state and sort them, and, for
	// each, to look for an earlier one of its record among all of them:
	// with 200,000 pending (a burst, or a destination down), one claim
	// read them all for every candidate and ran for minutes.
	//
	// The limit is part of the statement's text, not a parameter, so that
	// its generic plan knows it: not knowing it, the generic plan expected
	// a third of the pending deliveries and joined events and records
	// wholesale, so beside 1,000,000 pending PostgreSQL kept planning
	// every claim anew (0.41 ms of a claim's 0.57 ms), and a generic plan
	// forced on it took seconds.
	qClaimLimit = `UPDATE deliveries d SET ` + claimSet + ` FROM events e, records r WHERE d.id IN (
		SELECT c.id FROM deliveries c WHERE c.state = 'pending' AND c.next_at <= $3 AND (c.lease_until IS NULL OR c.lease_until <= $3)
		AND c.client_id || '/' || c.destination <> ALL($4::text[])
		AND (c.client_id || '/' || c.destination = ANY($5::text[]) OR c.event_id <= (SELECT p.event_id FROM deliveries p
			WHERE p.record_id = c.record_id AND p.destination = c.destination AND p.state = 'pending' AND p.client_id = c.client_id
			ORDER BY p.event_id LIMIT 1))
		ORDER BY c.next_at, c.id LIMIT %d FOR UPDATE SKIP LOCKED)
		AND e.id = d.event_id AND r.id = e.record_id RETURNING ` + sqlstore.DeliveryColumns + sqlstore.ClaimedBodies
	// claimSet leases a claimed delivery: next_at moves to the lease's
	// end, and due_at keeps when it was due (a released one, next_at 0,
	// kept it from its claim; one released before due_at was kept counts
	// from its creation).
	claimSet = "lease_owner = $1, lease_until = $2, next_at = $2, due_at = coalesce(d.due_at, nullif(d.next_at, 0), d.created_at)"

	// qClaimSkipping, with the limit written in wherever it says %[1]d,
	// is the claim of qClaimLimit (same first five parameters, same
	// answer: the first due deliveries in (next_at, id) order of the
	// destinations not skipped, per-record order kept) for a claim that
	// skips destinations, or caps what each may get: $6 and $7 list
	// destinations ("client/id") and their room, $8 is every other's.
	// qClaimLimit's walk reads every due delivery of the skipped ones
	// that comes first; this one reads none of them, whatever their
	// backlog:
	//
	//   - dests: each destination with a pending delivery, one step down
	//     deliveries_due_by_destination per destination (a skip scan);
	//   - heads: the first claimable delivery of each destination not
	//     skipped, one probe each, and of those the first limit in
	//     (next_at, id) order: only their destinations can have a
	//     delivery among the first limit;
	//   - picked: of the head ranked k, its destination's claimable
	//     deliveries up to the limit-th head (none after it can be among
	//     the first limit), at most limit+1-k of them (the k-1 heads
	//     before it come first) and at most its room, merged, the first
	//     limit;
	//   - locked: those still claimable, locked; one another process
	//     holds is skipped (SKIP LOCKED), so a claim racing another can
	//     return fewer than it could have.
	//
	// Its walks say "state NOT IN ('delivered', 'failed')" where the other
	// statements say "state = 'pending'" (the same, by the table's CHECK),
	// as deliveries_due_by_destination's predicate does, so that only that
	// index can serve them; locked says "state || '' = 'pending'", which
	// no partial index's predicate follows from, so that it finds its
	// rows by primary key. With statistics that said nothing was pending,
	// the planner preferred to walk the skipped backlog down
	// deliveries_due, filtering by destination, and to read every pending
	// delivery into a hash to lock 32.
	//
	// It reads one index entry per destination with pending deliveries
	// and, beyond the limit, at most limit*(limit+1)/2 rows however many
	// are due, where qClaimLimit reads exactly the rows it claims when it
	// skips nothing: Claim takes this one only when it skips or caps
	// (store.ClaimRequest.ByDestination). It sorts a
	// few rows (at most one per destination, or limit*(limit+1)/2) where
	// the walks above need none; run sortless, each sort costs the
	// planner's penalty for a disabled sort, which is why sortless also
	// turns off JIT compilation (that penalty made PostgreSQL compile the
	// plan: 300 ms a claim).
	qClaimSkipping = `WITH RECURSIVE dests (client_id, destination) AS (
		(SELECT client_id, destination FROM deliveries WHERE state NOT IN ('delivered', 'failed')
			ORDER BY client_id, destination, next_at LIMIT 1)
		UNION ALL
		SELECT n.client_id, n.destination FROM dests t CROSS JOIN LATERAL (SELECT x.client_id, x.destination FROM deliveries x
			WHERE x.state NOT IN ('delivered', 'failed') AND (x.client_id, x.destination) > (t.client_id, t.destination)
			ORDER BY x.client_id, x.destination, x.next_at LIMIT 1) n),
	heads AS MATERIALIZED (SELECT h.client_id, h.destination, h.unordered, h.room, f.next_at, f.id,
			row_number() OVER (ORDER BY f.next_at, f.id) AS k
		FROM (SELECT client_id, destination, client_id || '/' || destination = ANY($5::text[]) AS unordered,
				coalesce((SELECT r.n FROM unnest($6::text[], $7::int[]) AS r (ref, n) WHERE r.ref = client_id || '/' || destination), $8) AS room
			FROM dests WHERE client_id || '/' || destination <> ALL($4::text[])) h
		CROSS JOIN LATERAL (SELECT c.next_at, c.id FROM deliveries c WHERE ` + claimable + `
			ORDER BY c.client_id, c.destination, c.next_at, c.id LIMIT 1) f
		ORDER BY f.next_at, f.id LIMIT %[1]d),
	picked AS MATERIALIZED (SELECT c.id, c.next_at FROM heads h CROSS JOIN LATERAL (SELECT c.id, c.next_at FROM deliveries c
			WHERE ` + claimable + ` AND (c.next_at, c.id) <= (
				coalesce((SELECT l.next_at FROM heads l WHERE l.k = %[1]d), 9223372036854775807),
				coalesce((SELECT l.id FROM heads l WHERE l.k = %[1]d), 9223372036854775807))
			ORDER BY c.client_id, c.destination, c.next_at, c.id LIMIT least(%[1]d + 1 - h.k, h.room)) c
		ORDER BY c.next_at, c.id LIMIT %[1]d),
	locked AS (SELECT l.id FROM picked p JOIN deliveries l ON l.id = p.id
		WHERE l.state || '' = 'pending' AND l.next_at <= $3 AND (l.lease_until IS NULL OR l.lease_until <= $3)
		ORDER BY p.next_at, p.id LIMIT %[1]d FOR UPDATE OF l SKIP LOCKED)
	UPDATE deliveries d SET ` + claimSet + ` FROM locked, events e, records r WHERE d.id = locked.id
		AND e.id = d.event_id AND r.id = e.record_id RETURNING ` + sqlstore.DeliveryColumns + sqlstore.ClaimedBodies
	// claimable is a pending delivery c of destination h due at $3, not
	// leased, and the first pending one of its record to h unless h is
	// unordered (see qClaimLimit).
	claimable = `c.client_id = h.client_id AND c.destination = h.destination AND c.state NOT IN ('delivered', 'failed')
			AND c.next_at <= $3 AND (c.lease_until IS NULL OR c.lease_until <= $3)
			AND (h.unordered OR c.event_id <= (SELECT p.event_id FROM deliveries p
				WHERE p.record_id = c.record_id AND p.destination = c.destination AND p.state = 'pending' AND p.client_id = c.client_id
				ORDER BY p.event_id LIMIT 1))`

	// qNextDue takes a time and returns the first pending delivery's due
	// time after it: one step down deliveries_due, run sortless like
	// the claim for the same reason.
	qNextDue = "SELECT next_at FROM deliveries WHERE state = 'pending' AND next_at > $1 ORDER BY next_at LIMIT 1"
	// sortless and sorting turn the planner's sorts off and on again
	// within a transaction, around the claim and qNextDue: a plan that
	// would sort costs more than any other, so the ordered walks of the
	// pending deliveries' indexes are taken.
	// JIT compilation goes off with the sorts (see qClaimSkipping) and
	// stays off for the rest of the transaction: it changes no plan, and
	// the batch's other statements cost far too little to be compiled.
	sortless = "SELECT set_config('enable_sort', 'off', true), set_config('jit', 'off', true)"
	sorting  = "SET LOCAL enable_sort = on"
	// qInsertAttempt records an attempt while its delivery is there: an
	// erasure removes it, and FOR SHARE waits for an erasure under way
	// (which locks its deliveries first), so no attempt is recorded of an
	// erased delivery, nor left to break the erasure's delete.
	qInsertAttempt = `INSERT INTO attempts (delivery_id, series, number, owner, started_at, duration_ns,
		status_code, error_class, response) SELECT $1::bigint, $2::integer, $3::integer, $4::text, $5::bigint, $6::bigint,
		$7::integer, $8::text, $9::bytea WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = $1 FOR SHARE)`
	// qFinish takes state, attempts, next at, updated at, last error, id,
	// owner, series: it moves the delivery only while owner holds its lease.
	qFinish = `UPDATE deliveries SET state = $1, attempts = $2, next_at = $3, due_at = NULL, lease_owner = NULL,
		lease_until = NULL, updated_at = $4, last_error = $5 WHERE id = $6 AND lease_owner = $7 AND series = $8`

	// The advisory lock of a live owner (see Store.HoldOwner); its key is
	// a hash of the owner's name, kept apart from other locks by a prefix.
	qLockOwner    = "SELECT pg_advisory_lock(hashtextextended('pads owner ' || $1, 0))"
	qTryLockOwner = "SELECT pg_try_advisory_lock(hashtextextended('pads owner ' || $1, 0))"
	qUnlockOwner  = "SELECT pg_advisory_unlock(hashtextextended('pads owner ' || $1, 0))"
	// qLeaseOwners lists the owners of leases but self.
	qLeaseOwners  = "SELECT DISTINCT lease_owner FROM deliveries WHERE lease_owner IS NOT NULL AND lease_owner <> $1"
	qReleaseOwner = "UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, next_at = 0 WHERE lease_owner = $1"
)
