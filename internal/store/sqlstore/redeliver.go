package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/pads-dev/pads/internal/store"
)

// DeliverPatient implements store.Redeliverer: it reads the patient's
// events, then inserts one delivery per event that has none to the
// destination. Each insert checks again, in the writer's transaction, that
// none exists: two operators replaying at once enqueue one delivery.
func (s *Shared) DeliverPatient(ctx context.Context, r store.PatientDelivery) (store.Redelivered, error) {
	var out store.Redelivered
	if len(r.Funnels) == 0 {
		return out, nil
	}
	q := `SELECT e.id, e.record_id, e.data_type, e.payload IS NULL,
		EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.client_id = ? AND d.destination = ?)
		FROM events e JOIN records r ON r.id = e.record_id
		WHERE r.client_id = ? AND r.patient_uuid = ? AND e.funnel_id IN (?` + strings.Repeat(", ?", len(r.Funnels)-1) + ")"
	args := []any{r.ClientID, r.Destination, r.ClientID, r.PatientUUID}
	for _, f := range r.Funnels {
		args = append(args, f)
	}
	if r.AssessmentType != "" {
		q, args = q+" AND r.assessment_type = ?", append(args, r.AssessmentType)
	}
	if len(r.Events) > 0 {
		q += " AND e.data_type IN (?" + strings.Repeat(", ?", len(r.Events)-1) + ")"
		for _, e := range r.Events {
			args = append(args, e)
		}
	}
	rows, err := s.db.Query(ctx, q+" ORDER BY e.id", args...)
	if err != nil {
		return out, fmt.Errorf("deliver patient: %w", err)
	}
	var stmts []Stmt
	now := r.Now.UnixNano()
	for rows.Next() {
		var id, recordID int64
		var dataType string
		var gone, already bool
		if err := rows.Scan(&id, &recordID, &dataType, &gone, &already); err != nil {
			rows.Close()
			return out, fmt.Errorf("deliver patient: %w", err)
		}
		out.Events++
		switch {
		case already:
			out.Already++
		case gone:
			out.Gone++
		default:
			stmts = append(stmts, Stmt{insertRedelivery, []any{NewMessageID(), id, recordID, r.ClientID, r.Destination, dataType,
				now, now, now, id, r.ClientID, r.Destination}})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("deliver patient: %w", err)
	}
	if out.Events == 0 {
		var n int
		err := s.db.QueryRow(ctx, "SELECT count(*) FROM records WHERE client_id = ? AND patient_uuid = ?", r.ClientID, r.PatientUUID).Scan(&n)
		if err != nil {
			return out, fmt.Errorf("deliver patient: %w", err)
		}
		if n == 0 {
			return out, store.ErrNotFound
		}
		return out, nil
	}
	if len(stmts) == 0 {
		return out, nil
	}
	changed, err := s.db.Write(ctx, stmts...)
	if err != nil {
		return out, fmt.Errorf("deliver patient: %w", err)
	}
	for _, n := range changed {
		out.Enqueued += int(n)
	}
	out.Already += len(stmts) - out.Enqueued
	return out, nil
}

// insertRedelivery adds a first-series pending delivery of an event to a
// destination unless it has one. The casts type the parameters for
// PostgreSQL, which cannot infer them in a SELECT list.
const insertRedelivery = `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series,
	attempts, next_at, created_at, updated_at)
	SELECT CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), 'pending', 1,
	0, CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT)
	WHERE NOT EXISTS (SELECT 1 FROM deliveries WHERE event_id = ? AND client_id = ? AND destination = ?)`
