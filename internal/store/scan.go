package store

import (
	"database/sql"
	"errors"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// Scanner is a row of any driver (database/sql's and pgx's both fit).
type Scanner interface{ Scan(dest ...any) error }

// RowColumns are the columns ScanRow reads, in its order; drivers select
// them "FROM records".
const RowColumns = `id, client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed,
	created_at, updated_at, form_completed_at, assessment_completed_at`

// ScanRow reads a record row. noRows is the driver's "no row" error, for
// which it reports found false.
func ScanRow(sc Scanner, noRows error) (row Row, found bool, err error) {
	var (
		created, updated     int64
		formAt, assessmentAt sql.NullInt64
	)
	err = sc.Scan(&row.ID, &row.Key.ClientID, &row.Key.PatientUUID, &row.Key.AssessmentType, &row.FunnelID,
		&row.EmailIndex, &row.Sealed, &created, &updated, &formAt, &assessmentAt)
	if errors.Is(err, noRows) {
		return Row{}, false, nil
	}
	if err != nil {
		return Row{}, false, err
	}
	row.CreatedAt, row.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	row.FormCompletedAt, row.AssessmentCompletedAt = FromNull(formAt), FromNull(assessmentAt)
	return row, true, nil
}

// DeliveryColumns are the columns ScanDelivery reads, over deliveries d,
// events e and records r.
const DeliveryColumns = `d.id, d.message_id, d.event_id, r.client_id, r.patient_uuid, r.assessment_type, e.funnel_id,
	d.destination, d.data_type, d.state, d.series, d.attempts, d.next_at, d.created_at, d.updated_at, coalesce(d.last_error, '')`

// ScanDelivery reads a delivery row, then extra columns into extra.
func ScanDelivery(sc Scanner, extra ...any) (Delivery, error) {
	var (
		d                      Delivery
		dt                     string
		next, created, updated int64
	)
	dest := []any{&d.ID, &d.MessageID, &d.EventID, &d.Key.ClientID, &d.Key.PatientUUID, &d.Key.AssessmentType, &d.FunnelID,
		&d.Destination, &dt, &d.State, &d.Series, &d.Attempts, &next, &created, &updated, &d.LastError}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return d, err
	}
	d.DataType = record.DataType(dt)
	d.NextAt, d.CreatedAt, d.UpdatedAt = time.Unix(0, next).UTC(), time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	return d, nil
}

// FromNull reads a nullable Unix-nanosecond column; NULL is the zero time.
func FromNull(n sql.NullInt64) time.Time {
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
