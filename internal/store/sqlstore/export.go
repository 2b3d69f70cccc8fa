package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// The queries of an export: the patient's records, then each record's
// events and deliveries, and each delivery's attempts.
const (
	exportEvents = `SELECT e.id, e.funnel_id, e.data_type, e.model, e.created_at, e.payload, e.fhir, e.snapshot
		FROM events e WHERE e.record_id = ? ORDER BY e.id`
	exportDeliveries = "SELECT " + DeliveryColumns + DeliveryFrom + " WHERE e.record_id = ? ORDER BY d.id"
)

// Export reads every record of p with its events (bodies opened),
// deliveries and attempts, oldest first (store.Lifecycle.Export). It reads
// from the read pool, each query on its own: a save meanwhile may show in
// some parts and not others.
func (s *Shared) Export(ctx context.Context, p store.Patient) ([]store.PatientRecord, error) {
	cond, args := s.patientCond(p)
	rows, err := queryAll(ctx, s.db, scanRecordRow, "SELECT "+recordColumns+" FROM records r WHERE "+cond+" ORDER BY r.id", args...)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	out := []store.PatientRecord{}
	for _, row := range rows {
		rec, err := s.exportRecord(ctx, row)
		if err != nil {
			return nil, fmt.Errorf("export record %d: %w", row.ID, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// recordColumns are RowColumns over records r.
const recordColumns = `r.id, r.client_id, r.patient_uuid, r.assessment_type, r.funnel_id, r.email_index, r.sealed, r.version,
	r.created_at, r.updated_at, r.form_completed_at, r.assessment_completed_at`

func scanRecordRow(sc Scanner) (Row, error) {
	row, _, err := ScanRow(sc)
	return row, err
}

func (s *Shared) exportRecord(ctx context.Context, row Row) (store.PatientRecord, error) {
	rec, err := s.codec.OpenRecord(row)
	if err != nil {
		return store.PatientRecord{}, err
	}
	out := store.PatientRecord{Record: rec}
	events, err := queryAll(ctx, s.db, func(sc Scanner) (store.ExportedEvent, error) {
		return s.scanExportedEvent(sc, rec.Key)
	}, exportEvents, row.ID)
	if err != nil {
		return out, err
	}
	out.Events = events
	byID := map[int64]int{}
	for i, e := range events {
		byID[e.ID] = i
	}
	deliveries, err := queryAll(ctx, s.db, scanDeliveryRow, exportDeliveries, row.ID)
	if err != nil {
		return out, err
	}
	for _, d := range deliveries {
		attempts, err := queryAll(ctx, s.db, scanAttempt, listAttempts, d.ID)
		if err != nil {
			return out, err
		}
		for i := range attempts {
			attempts[i].DeliveryID, attempts[i].MessageID = d.ID, d.MessageID
			attempts[i].Response = nil // the destination's words, not the patient's data
		}
		if i, ok := byID[d.EventID]; ok {
			out.Events[i].Deliveries = append(out.Events[i].Deliveries, store.ExportedDelivery{Delivery: d, Attempts: attempts})
		}
	}
	return out, nil
}

func (s *Shared) scanExportedEvent(sc Scanner, k record.Key) (store.ExportedEvent, error) {
	e := store.ExportedEvent{Event: store.Event{Key: k}}
	var dt string
	var created int64
	var payload, fhir []byte
	if err := sc.Scan(&e.ID, &e.FunnelID, &dt, &e.Model, &created, &payload, &fhir, &e.Snapshot); err != nil {
		return e, err
	}
	e.DataType, e.CreatedAt = record.DataType(dt), time.Unix(0, created).UTC()
	var err error
	if e.Payload, err = s.codec.openBody(k, e.DataType, payload, bodyAD(k, e.DataType, e.Snapshot)); err != nil {
		return e, err
	}
	e.FHIR, err = s.codec.openBody(k, e.DataType, fhir, fhirAD(k, e.DataType))
	return e, err
}

// openBody opens an event's sealed payload, snapshot or FHIR Bundle,
// sealed with ad; nil stays nil (removed by retention, or never made).
func (c Codec) openBody(k record.Key, dt record.DataType, sealed, ad []byte) ([]byte, error) {
	if sealed == nil {
		return nil, nil
	}
	body, err := c.Keys.Open(sealed, ad)
	if err != nil {
		return nil, fmt.Errorf("open an event's body: %w", err)
	}
	return body, nil
}
