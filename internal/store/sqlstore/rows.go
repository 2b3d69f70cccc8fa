package sqlstore

import (
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// Scanner is one row of any driver (database/sql's and pgx's both fit).
type Scanner interface{ Scan(dest ...any) error }

// Rows is a driver's result set.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// collect scans every row with scan. The caller closes rows.
func collect[T any](rows interface {
	Next() bool
	Scanner
	Err() error
}, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// RowColumns are the columns ScanRow reads, in its order; drivers select
// them "FROM records".
const RowColumns = `id, client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, version,
	created_at, updated_at, form_completed_at, assessment_completed_at`

// ScanRow reads a record row; found is false when there is none.
func ScanRow(sc Scanner) (row Row, found bool, err error) {
	var (
		created, updated     int64
		formAt, assessmentAt sql.NullInt64
	)
	err = sc.Scan(&row.ID, &row.Key.ClientID, &row.Key.PatientUUID, &row.Key.AssessmentType, &row.FunnelID,
		&row.EmailIndex, &row.Sealed, &row.Version, &created, &updated, &formAt, &assessmentAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Row{}, false, nil
	}
	if err != nil {
		return Row{}, false, err
	}
	row.CreatedAt, row.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	row.FormCompletedAt, row.AssessmentCompletedAt = fromNull(formAt), fromNull(assessmentAt)
	return row, true, nil
}

// Queries both drivers run, written with ? placeholders
// (PostgreSQL rebinds them with Rebind).
const (
	// DeliveryColumns are the columns scanDelivery reads, over deliveries
	// d, events e and records r (DeliveryFrom).
	DeliveryColumns = `d.id, d.message_id, d.event_id, r.client_id, r.patient_uuid, r.assessment_type, e.funnel_id,
	d.destination, d.data_type, e.model, d.state, d.series, d.attempts, d.next_at, d.created_at, d.updated_at, coalesce(d.last_error, '')`
	DeliveryFrom = " FROM deliveries d JOIN events e ON e.id = d.event_id JOIN records r ON r.id = e.record_id"
	// ClaimedBodies are the columns ScanClaimed reads after DeliveryColumns.
	ClaimedBodies = ", e.payload, e.fhir, e.snapshot, coalesce(d.due_at, 0)"

	// listDeliveries takes state, state, client, client, limit; "" selects all.
	listDeliveries = "SELECT " + DeliveryColumns + DeliveryFrom +
		" WHERE (? = '' OR d.state = ?) AND (? = '' OR d.client_id = ?) ORDER BY d.id DESC LIMIT ?"
	// getDelivery takes the delivery id.
	getDelivery = "SELECT " + DeliveryColumns + DeliveryFrom + " WHERE d.id = ?"
	// listAttempts takes the delivery id; scanAttempt reads its rows.
	listAttempts = `SELECT series, number, owner, started_at, duration_ns, coalesce(status_code, 0),
		coalesce(error_class, ''), response FROM attempts WHERE delivery_id = ? ORDER BY id`
)

// Rebind turns ? placeholders into PostgreSQL's $1, $2, ... (the queries
// here hold no ? in a literal).
func Rebind(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// scanDelivery reads a delivery row, then extra columns into extra.
func scanDelivery(sc Scanner, extra ...any) (store.Delivery, error) {
	var (
		d                      store.Delivery
		dt                     string
		next, created, updated int64
	)
	dest := []any{&d.ID, &d.MessageID, &d.EventID, &d.Key.ClientID, &d.Key.PatientUUID, &d.Key.AssessmentType, &d.FunnelID,
		&d.Destination, &dt, &d.Model, &d.State, &d.Series, &d.Attempts, &next, &created, &updated, &d.LastError}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return d, err
	}
	d.DataType = record.DataType(dt)
	d.NextAt, d.CreatedAt, d.UpdatedAt = time.Unix(0, next).UTC(), time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	return d, nil
}

// scanDeliveryRow is scanDelivery without extra columns, for Collect.
func scanDeliveryRow(sc Scanner) (store.Delivery, error) { return scanDelivery(sc) }

// ScanClaimed reads a claimed delivery's columns, then its sealed payload
// (or snapshot), FHIR Bundle and due time (ClaimedBodies).
func ScanClaimed(sc Scanner) (store.Claimed, error) {
	var c store.Claimed
	var due int64
	d, err := scanDelivery(sc, &c.Payload, &c.FHIR, &c.Snapshot, &due)
	c.Delivery = d
	if due > 0 {
		c.DueAt = time.Unix(0, due).UTC()
	}
	return c, err
}

// scanAttempt reads a listAttempts row; Response holds the sealed bytes.
func scanAttempt(sc Scanner) (store.Attempt, error) {
	var a store.Attempt
	var started, dur int64
	err := sc.Scan(&a.Series, &a.Number, &a.Owner, &started, &dur, &a.StatusCode, &a.ErrorClass, &a.Response)
	a.StartedAt, a.Duration = time.Unix(0, started).UTC(), time.Duration(dur)
	return a, err
}

// scanAudit reads a row of the audit log.
func scanAudit(sc Scanner) (store.AuditEntry, error) {
	var e store.AuditEntry
	var at int64
	err := sc.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target)
	e.At = time.Unix(0, at).UTC()
	return e, err
}

// fromNull reads a nullable Unix-nanosecond column; NULL is the zero time.
func fromNull(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

// ToNull writes a time as a nullable Unix-nanosecond column.
func ToNull(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// NullInt writes 0 as NULL.
func NullInt(v int) sql.NullInt64 { return sql.NullInt64{Int64: int64(v), Valid: v != 0} }

// NullString writes "" as NULL.
func NullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
