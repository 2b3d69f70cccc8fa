package store

import (
	"strconv"
	"strings"
	"time"
)

// Queries both drivers run as they are, written with ? placeholders
// (PostgreSQL rebinds them with Rebind).
const (
	DeliveryFrom = " FROM deliveries d JOIN events e ON e.id = d.event_id JOIN records r ON r.id = e.record_id"

	// ListDeliveries takes state, state, client, client, limit; "" selects all.
	ListDeliveries = "SELECT " + DeliveryColumns + DeliveryFrom +
		" WHERE (? = '' OR d.state = ?) AND (? = '' OR d.client_id = ?) ORDER BY d.id DESC LIMIT ?"
	// GetDelivery takes the delivery id.
	GetDelivery = "SELECT " + DeliveryColumns + DeliveryFrom + " WHERE d.id = ?"
	// ListAttempts takes the delivery id; ScanAttempt reads its rows.
	ListAttempts = `SELECT series, number, owner, started_at, duration_ns, coalesce(status_code, 0),
		coalesce(error_class, ''), response FROM attempts WHERE delivery_id = ? ORDER BY id`
	// InsertAudit takes at, actor, action, target.
	InsertAudit = "INSERT INTO audit (at, actor, action, target) VALUES (?, ?, ?, ?)"
	// ListAudit takes the limit; ScanAudit reads its rows.
	ListAudit = "SELECT id, at, actor, action, target FROM audit ORDER BY id DESC LIMIT ?"
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

// Rows is a driver's result set (database/sql's and pgx's both fit).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Collect scans every row with scan. The caller closes rows.
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
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

// ScanAttempt reads a ListAttempts row; Response holds the sealed bytes.
func ScanAttempt(sc Scanner) (Attempt, error) {
	var a Attempt
	var started, dur int64
	err := sc.Scan(&a.Series, &a.Number, &a.Owner, &started, &dur, &a.StatusCode, &a.ErrorClass, &a.Response)
	a.StartedAt, a.Duration = time.Unix(0, started).UTC(), time.Duration(dur)
	return a, err
}

// ScanAudit reads a ListAudit row.
func ScanAudit(sc Scanner) (AuditEntry, error) {
	var e AuditEntry
	var at int64
	err := sc.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target)
	e.At = time.Unix(0, at).UTC()
	return e, err
}

// ScanDeliveryRow is ScanDelivery without extra columns, for Collect.
func ScanDeliveryRow(sc Scanner) (Delivery, error) { return ScanDelivery(sc) }

// OpenAttempts opens the sealed answers of a delivery's attempts.
func (s *Saver) OpenAttempts(d Delivery, attempts []Attempt) {
	for i := range attempts {
		attempts[i].DeliveryID, attempts[i].MessageID = d.ID, d.MessageID
		attempts[i].Response = s.OpenResponse(d.MessageID, attempts[i].Response)
	}
}

// ScanClaimed reads a claimed delivery's columns, then its sealed payload.
func ScanClaimed(sc Scanner) (Claimed, error) {
	var c Claimed
	d, err := ScanDelivery(sc, &c.Payload)
	c.Delivery = d
	return c, err
}
