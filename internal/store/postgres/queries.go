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
	qClaimLimit = `UPDATE deliveries d SET lease_owner = $1, lease_until = $2, next_at = $2 FROM events e, records r WHERE d.id IN (
		SELECT c.id FROM deliveries c WHERE c.state = 'pending' AND c.next_at <= $3 AND (c.lease_until IS NULL OR c.lease_until <= $3)
		AND c.client_id || '/' || c.destination <> ALL($4::text[])
		AND (c.client_id || '/' || c.destination = ANY($5::text[]) OR c.event_id <= (SELECT p.event_id FROM deliveries p
			WHERE p.record_id = c.record_id AND p.destination = c.destination AND p.state = 'pending' AND p.client_id = c.client_id
			ORDER BY p.event_id LIMIT 1))
		ORDER BY c.next_at, c.id LIMIT %d FOR UPDATE SKIP LOCKED)
		AND e.id = d.event_id AND r.id = e.record_id RETURNING ` + sqlstore.DeliveryColumns + sqlstore.ClaimedBodies
	// qNextDue takes a time and returns the first pending delivery's due
	// time after it: one step down deliveries_due, run sortless like
	// the claim for the same reason.
	qNextDue = "SELECT next_at FROM deliveries WHERE state = 'pending' AND next_at > $1 ORDER BY next_at LIMIT 1"
	// sortless and sorting turn the planner's sorts off and on again
	// within a transaction, around the claim and qNextDue: a plan that
	// would sort costs more than any other, so the ordered walks of the
	// pending deliveries' indexes are taken.
	sortless = "SET LOCAL enable_sort = off"
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
	qFinish = `UPDATE deliveries SET state = $1, attempts = $2, next_at = $3, lease_owner = NULL,
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
