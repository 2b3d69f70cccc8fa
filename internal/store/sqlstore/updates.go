package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// latestResults are a record's deliveries of results, oldest event
// first: the record by its unique key, its events by events_by_record,
// their deliveries by deliveries_by_event (indexes both drivers have).
const latestResults = `SELECT d.destination, d.message_id, d.state FROM records r
	JOIN events e ON e.record_id = r.id
	JOIN deliveries d ON d.event_id = e.id
	WHERE r.client_id = ? AND r.patient_uuid = ? AND r.assessment_type = ?
	AND e.data_type IN ('sensitive', 'results-updated') AND d.state <> 'failed'
	ORDER BY e.id, d.id`

// LatestResults returns, by destination id, the latest delivery of the
// record's results (an event of data type sensitive or results-updated)
// that did not fail for good: delivered, or pending (on its way); empty
// when there is none. A results-updated event names it as the message it
// updates.
func (s *Shared) LatestResults(ctx context.Context, key record.Key) (map[string]store.ResultsDelivery, error) {
	type row struct {
		destination string
		store.ResultsDelivery
	}
	rows, err := queryAll(ctx, s.db, func(sc Scanner) (row, error) {
		var r row
		return r, sc.Scan(&r.destination, &r.MessageID, &r.State)
	}, latestResults, key.ClientID, key.PatientUUID, key.AssessmentType)
	if err != nil {
		return nil, fmt.Errorf("latest results: %w", err)
	}
	out := make(map[string]store.ResultsDelivery, len(rows))
	for _, r := range rows {
		out[r.destination] = r.ResultsDelivery // a later event's delivery replaces an earlier one's
	}
	return out, nil
}

// MessageState returns the state of the delivery of messageID, by the
// unique index on message_id.
func (s *Shared) MessageState(ctx context.Context, messageID string) (string, error) {
	var state string
	err := s.db.QueryRow(ctx, "SELECT state FROM deliveries WHERE message_id = ?", messageID).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return "", store.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("message state: %w", err)
	}
	return state, nil
}
