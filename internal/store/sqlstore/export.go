package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// The queries of an export, each taking a record's id.
const (
	exportRecord = "SELECT " + RowColumns + " FROM records WHERE id = ?"
	exportEvents = `SELECT e.id, e.funnel_id, e.data_type, e.model, e.created_at, e.payload, e.fhir
		FROM events e WHERE e.record_id = ? ORDER BY e.id`
	exportDeliveries = "SELECT " + DeliveryColumns + DeliveryFrom + " WHERE e.record_id = ? ORDER BY d.id"
)

// Export reads, through q, every record of p with its events (bodies
// opened), deliveries and attempts, oldest first.
func Export(ctx context.Context, q Querier, d Dialect, codec Codec, p store.Patient) ([]store.PatientRecord, error) {
	ids, err := patientRecords(ctx, q, d, codec, p, false)
	if err != nil {
		return nil, err
	}
	out := []store.PatientRecord{}
	for _, id := range ids {
		rec, err := exportOne(ctx, q, codec, id)
		if err != nil {
			return nil, fmt.Errorf("export record %d: %w", id, err)
		}
		if rec != nil {
			out = append(out, *rec)
		}
	}
	return out, nil
}

// exportOne reads one record; nil when it is gone meanwhile.
func exportOne(ctx context.Context, q Querier, codec Codec, id int64) (*store.PatientRecord, error) {
	var row Row
	found := false
	err := q.Each(ctx, exportRecord, func(sc Scanner) error {
		var err error
		row, found, err = ScanRow(sc)
		return err
	}, id)
	if err != nil || !found {
		return nil, err
	}
	rec, err := codec.OpenRecord(row)
	if err != nil {
		return nil, err
	}
	out := &store.PatientRecord{Record: rec}
	byID := map[int64]int{}
	err = q.Each(ctx, exportEvents, func(sc Scanner) error {
		e := store.ExportedEvent{Event: store.Event{Key: rec.Key}}
		var dt string
		var created int64
		var payload, fhir []byte
		if err := sc.Scan(&e.ID, &e.FunnelID, &dt, &e.Model, &created, &payload, &fhir); err != nil {
			return err
		}
		e.DataType, e.CreatedAt = record.DataType(dt), time.Unix(0, created).UTC()
		if e.Payload, err = codec.OpenBody(rec.Key, e.DataType, payload, false); err != nil {
			return err
		}
		if e.FHIR, err = codec.OpenBody(rec.Key, e.DataType, fhir, true); err != nil {
			return err
		}
		byID[e.ID] = len(out.Events)
		out.Events = append(out.Events, e)
		return nil
	}, id)
	if err != nil {
		return nil, err
	}
	var deliveries []store.Delivery
	err = q.Each(ctx, exportDeliveries, func(sc Scanner) error {
		d, err := scanDelivery(sc)
		deliveries = append(deliveries, d)
		return err
	}, id)
	if err != nil {
		return nil, err
	}
	for _, d := range deliveries {
		var attempts []store.Attempt
		err := q.Each(ctx, listAttempts, func(sc Scanner) error {
			a, err := scanAttempt(sc)
			a.Response = nil // the destination's words, not the patient's data
			attempts = append(attempts, a)
			return err
		}, d.ID)
		if err != nil {
			return nil, err
		}
		if i, ok := byID[d.EventID]; ok {
			out.Events[i].Deliveries = append(out.Events[i].Deliveries, store.ExportedDelivery{Delivery: d, Attempts: attempts})
		}
	}
	return out, nil
}

// OpenBody opens an event's sealed payload (or, with fhir, its FHIR
// Bundle); nil stays nil (removed by retention, or never made).
func (c Codec) OpenBody(k record.Key, dt record.DataType, sealed []byte, fhir bool) ([]byte, error) {
	if sealed == nil {
		return nil, nil
	}
	ad := payloadAD(k, dt)
	if fhir {
		ad = fhirAD(k, dt)
	}
	body, err := c.Keys.Open(sealed, ad)
	if err != nil {
		return nil, fmt.Errorf("open an event's body: %w", err)
	}
	return body, nil
}
