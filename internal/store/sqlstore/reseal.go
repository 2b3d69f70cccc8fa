package sqlstore

import (
	"context"
	"fmt"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// ResealTx is what Reseal needs of a driver's write transaction.
type ResealTx interface {
	Tx
	// Records returns up to n records with an id above after, in id order,
	// locked against other writers until the transaction ends.
	Records(ctx context.Context, after int64, n int) ([]Row, error)
	// Events returns up to n events with an id above after, in id order.
	Events(ctx context.Context, after int64, n int) ([]SealedEvent, error)
	// SetEvent rewrites an event's sealed payload and Bundle.
	SetEvent(ctx context.Context, e *SealedEvent) error
	// Responses returns up to n attempts that kept an answer, with an id
	// above after, in id order.
	Responses(ctx context.Context, after int64, n int) ([]SealedResponse, error)
	// SetResponse rewrites an attempt's sealed answer.
	SetResponse(ctx context.Context, r *SealedResponse) error
}

// SealedEvent is an event's sealed payload and Bundle, with what they are
// bound to.
type SealedEvent struct {
	ID       int64
	Key      record.Key
	DataType record.DataType
	Payload  []byte
	FHIR     []byte // nil: the event has no Bundle
}

// SealedResponse is an attempt's sealed answer, bound to its delivery's
// message id.
type SealedResponse struct {
	ID        int64
	MessageID string
	Response  []byte
}

const (
	// EventColumns are what Events reads, over events e and records r.
	EventColumns = "e.id, r.client_id, r.patient_uuid, r.assessment_type, e.data_type, e.payload, e.fhir"
	// ResponseColumns are what Responses reads, over attempts a and
	// deliveries d.
	ResponseColumns = "a.id, d.message_id, a.response"
)

// ScanEvent reads one row of EventColumns.
func ScanEvent(sc Scanner) (SealedEvent, error) {
	var e SealedEvent
	var dt string
	err := sc.Scan(&e.ID, &e.Key.ClientID, &e.Key.PatientUUID, &e.Key.AssessmentType, &dt, &e.Payload, &e.FHIR)
	e.DataType = record.DataType(dt)
	return e, err
}

// ScanResponse reads one row of ResponseColumns.
func ScanResponse(sc Scanner) (SealedResponse, error) {
	var r SealedResponse
	err := sc.Scan(&r.ID, &r.MessageID, &r.Response)
	return r, err
}

// InTx runs fn in one write transaction of a driver. fn may run again if
// the transaction is retried, so it only fills what it returns.
type InTx func(ctx context.Context, fn func(ctx context.Context, tx ResealTx) error) error

// resealPage is how many values Reseal rewrites per transaction: short
// transactions, so saves and deliveries go on beside it.
const resealPage = 200

// Reseal rewrites, through inTx, every record, event payload and saved
// answer not sealed under the codec's first key.
func Reseal(ctx context.Context, inTx InTx, codec Codec) (store.ResealReport, error) {
	var rep store.ResealReport
	var err error
	if rep.Records, err = resealAll(ctx, inTx, codec, resealRecords); err != nil {
		return rep, fmt.Errorf("reseal records: %w", err)
	}
	if rep.Payloads, err = resealAll(ctx, inTx, codec, resealEvents); err != nil {
		return rep, fmt.Errorf("reseal payloads: %w", err)
	}
	if rep.Responses, err = resealAll(ctx, inTx, codec, resealResponses); err != nil {
		return rep, fmt.Errorf("reseal answers: %w", err)
	}
	return rep, nil
}

// page is what one transaction of a reseal did.
type page struct {
	seen, rewritten int
	byKey           map[string]int
	last            int64
}

// resealAll runs pageFn one page per transaction until a page comes back
// short, and adds up the pages that committed.
func resealAll(ctx context.Context, inTx InTx, codec Codec,
	pageFn func(context.Context, ResealTx, Codec, *page) error) (store.Resealed, error) {
	total := store.Resealed{ByKey: map[string]int{}}
	for after := int64(0); ; {
		var pg page
		err := inTx(ctx, func(ctx context.Context, tx ResealTx) error {
			pg = page{byKey: map[string]int{}, last: after}
			return pageFn(ctx, tx, codec, &pg)
		})
		if err != nil {
			return total, err
		}
		total.Rewritten += pg.rewritten
		for k, n := range pg.byKey {
			total.ByKey[k] += n
		}
		if pg.seen < resealPage {
			return total, nil
		}
		after = pg.last
	}
}

func resealRecords(ctx context.Context, tx ResealTx, codec Codec, pg *page) error {
	rows, err := tx.Records(ctx, pg.last, resealPage)
	if err != nil {
		return err
	}
	pg.seen = len(rows)
	for _, row := range rows {
		row, changed, err := resealRecord(ctx, tx, codec, row)
		if err != nil {
			return err
		}
		if changed {
			pg.rewritten++
		}
		pg.byKey[codec.Keys.KeyID(row.Sealed)]++
		pg.last = row.ID
	}
	return nil
}

// resealRecord rewrites row under the codec's first key, if another key
// sealed it, and returns the row as stored and whether it rewrote it. The
// email index is recomputed under the first key too.
func resealRecord(ctx context.Context, tx Tx, codec Codec, row Row) (Row, bool, error) {
	if codec.Keys.KeyID(row.Sealed) == codec.Keys.PrimaryID() {
		return row, false, nil
	}
	rec, err := codec.OpenRecord(row)
	if err != nil {
		return row, false, err
	}
	resealed, err := codec.SealRecord(rec)
	if err != nil {
		return row, false, err
	}
	id, err := tx.Update(ctx, &resealed, row.Version, true)
	if err != nil {
		return row, false, fmt.Errorf("record %d: %w", row.ID, err)
	}
	if id == 0 { // a save rewrote it meanwhile, under the first key
		return row, false, nil
	}
	resealed.ID, resealed.Version = id, row.Version+1
	return resealed, true, nil
}

// resealEvents rewrites the payloads and Bundles of a page of events.
// Events are never changed once written, so nothing races the rewrite; a
// payload that opens with no key in force is left for the operator to see
// in the report (its deliveries fail as payload_unreadable).
func resealEvents(ctx context.Context, tx ResealTx, codec Codec, pg *page) error {
	events, err := tx.Events(ctx, pg.last, resealPage)
	if err != nil {
		return err
	}
	pg.seen = len(events)
	for i := range events {
		e := &events[i]
		pg.last = e.ID
		if codec.Keys.KeyID(e.Payload) == codec.Keys.PrimaryID() {
			pg.byKey[codec.Keys.PrimaryID()]++
			continue
		}
		payload, err := codec.Keys.Open(e.Payload, payloadAD(e.Key, e.DataType))
		var bundle []byte
		if err == nil && e.FHIR != nil {
			bundle, err = codec.Keys.Open(e.FHIR, fhirAD(e.Key, e.DataType))
		}
		if err != nil {
			pg.byKey[codec.Keys.KeyID(e.Payload)]++
			continue
		}
		e.Payload, e.FHIR = codec.SealPayload(e.Key, e.DataType, payload), codec.SealFHIR(e.Key, e.DataType, bundle)
		if err := tx.SetEvent(ctx, e); err != nil {
			return fmt.Errorf("event %d: %w", e.ID, err)
		}
		pg.rewritten++
		pg.byKey[codec.Keys.PrimaryID()]++
	}
	return nil
}

// resealResponses rewrites the saved answers of a page of attempts, which
// are never changed once written either.
func resealResponses(ctx context.Context, tx ResealTx, codec Codec, pg *page) error {
	responses, err := tx.Responses(ctx, pg.last, resealPage)
	if err != nil {
		return err
	}
	pg.seen = len(responses)
	for i := range responses {
		r := &responses[i]
		pg.last = r.ID
		if codec.Keys.KeyID(r.Response) == codec.Keys.PrimaryID() {
			pg.byKey[codec.Keys.PrimaryID()]++
			continue
		}
		body, err := codec.Keys.Open(r.Response, responseAD(r.MessageID))
		if err != nil {
			pg.byKey[codec.Keys.KeyID(r.Response)]++
			continue
		}
		r.Response = codec.SealResponse(r.MessageID, body)
		if err := tx.SetResponse(ctx, r); err != nil {
			return fmt.Errorf("attempt %d: %w", r.ID, err)
		}
		pg.rewritten++
		pg.byKey[codec.Keys.PrimaryID()]++
	}
	return nil
}
