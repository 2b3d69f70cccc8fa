package sqlstore

import (
	"context"
	"fmt"

	"github.com/pads-dev/pads/internal/record"
)

// deliveredResults are a record's deliveries of results that reached
// delivered, oldest event first: the record by its unique key, its events
// by events_by_record, their deliveries by deliveries_by_event (indexes
// both drivers have).
const deliveredResults = `SELECT d.destination, d.message_id FROM records r
	JOIN events e ON e.record_id = r.id
	JOIN deliveries d ON d.event_id = e.id
	WHERE r.client_id = ? AND r.patient_uuid = ? AND r.assessment_type = ?
	AND e.data_type IN ('sensitive', 'results-updated') AND d.state = 'delivered'
	ORDER BY e.id, d.id`

// DeliveredResults returns, by destination id, the message id of the
// latest delivery of the record's results (an event of data type
// sensitive or results-updated) that reached delivered; empty when none
// did. A results-updated event names it as the message it updates.
func (s *Shared) DeliveredResults(ctx context.Context, key record.Key) (map[string]string, error) {
	type row struct{ destination, messageID string }
	rows, err := queryAll(ctx, s.db, func(sc Scanner) (row, error) {
		var r row
		return r, sc.Scan(&r.destination, &r.messageID)
	}, deliveredResults, key.ClientID, key.PatientUUID, key.AssessmentType)
	if err != nil {
		return nil, fmt.Errorf("delivered results: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.destination] = r.messageID // a later event's delivery replaces an earlier one's
	}
	return out, nil
}
