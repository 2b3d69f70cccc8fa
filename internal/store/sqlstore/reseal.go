package sqlstore

import (
	"context"
	"fmt"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// resealPage is how many values Reseal rewrites per transaction: short
// transactions, so saves and deliveries go on beside it.
const resealPage = 200

// Reseal rewrites every record, event payload and saved answer not sealed
// under the codec's first key (and every record whose email index is of an
// older form), a page per transaction of the writer. It reads each page
// outside the writer, so each rewrite changes its row only if it still
// holds what was read: a record at the version read (a save that rewrote
// it meanwhile sealed it under the first key already), an event's payload
// and an attempt's answer as read (retention may have removed them
// meanwhile, and a reseal must not bring them back).
func (s *Shared) Reseal(ctx context.Context) (store.ResealReport, error) {
	var rep store.ResealReport
	var err error
	if rep.Records, err = s.resealAll(ctx, s.resealRecords); err != nil {
		return rep, fmt.Errorf("reseal records: %w", err)
	}
	if rep.Payloads, err = s.resealAll(ctx, s.resealEvents); err != nil {
		return rep, fmt.Errorf("reseal payloads: %w", err)
	}
	if rep.Responses, err = s.resealAll(ctx, s.resealResponses); err != nil {
		return rep, fmt.Errorf("reseal answers: %w", err)
	}
	return rep, nil
}

// page is one page of a reseal: the rewrites it makes, and the values it
// leaves as they are by the key sealing them.
type page struct {
	seen   int
	last   int64
	writes []Stmt
	byKey  map[string]int
	// savedMeanwhile: a rewrite that changed nothing found its value
	// rewritten by a save, under the first key (records); otherwise the
	// value is gone (retention, erasure) and counts nowhere.
	savedMeanwhile bool
}

// resealAll reads pages with pageFn and writes each page's rewrites in
// one transaction, until a page comes back short.
func (s *Shared) resealAll(ctx context.Context, pageFn func(context.Context, *page) error) (store.Resealed, error) {
	total := store.Resealed{ByKey: map[string]int{}}
	for after := int64(0); ; {
		pg := page{last: after, byKey: map[string]int{}}
		if err := pageFn(ctx, &pg); err != nil {
			return total, err
		}
		if len(pg.writes) > 0 {
			changed, err := s.db.Write(ctx, pg.writes...)
			if err != nil {
				return total, err
			}
			for _, n := range changed {
				if n > 0 || pg.savedMeanwhile {
					total.ByKey[s.codec.Keys.PrimaryID()]++
				}
				total.Rewritten += int(n)
			}
		}
		for k, n := range pg.byKey {
			total.ByKey[k] += n
		}
		if pg.seen < resealPage {
			return total, nil
		}
		after = pg.last
	}
}

func (s *Shared) resealRecords(ctx context.Context, pg *page) error {
	rows, err := queryAll(ctx, s.db, scanPagedRow, "SELECT "+RowColumns+" FROM records WHERE id > ? ORDER BY id LIMIT ?", pg.last, resealPage)
	if err != nil {
		return err
	}
	pg.seen, pg.savedMeanwhile = len(rows), true
	for _, row := range rows {
		pg.last = row.ID
		rec, err := s.codec.OpenRecord(row)
		if err != nil {
			return err
		}
		if s.codec.Keys.KeyID(row.Sealed) == s.codec.Keys.PrimaryID() && s.codec.CurrentEmailIndex(row.EmailIndex, rec.Key.ClientID, emailOf(rec.Fields)) {
			pg.byKey[s.codec.Keys.PrimaryID()]++
			continue
		}
		// The email index is recomputed under the first key, and in its
		// current form (scoped to the client), too.
		resealed, err := s.codec.sealRecord(rec)
		if err != nil {
			return err
		}
		pg.writes = append(pg.writes, Stmt{"UPDATE records SET email_index = ?, sealed = ?, version = version + 1 WHERE id = ? AND version = ?",
			[]any{resealed.EmailIndex, resealed.Sealed, row.ID, row.Version}})
	}
	return nil
}

// scanPagedRow reads a row of a page, where every row is found.
func scanPagedRow(sc Scanner) (Row, error) {
	r, _, err := ScanRow(sc)
	return r, err
}

// sealedEvent is an event's sealed payload and Bundle, with what they are
// bound to.
type sealedEvent struct {
	id       int64
	key      record.Key
	dataType record.DataType
	payload  []byte // or its snapshot
	fhir     []byte // nil: the event has no Bundle
	snapshot bool
}

func scanEvent(sc Scanner) (sealedEvent, error) {
	var e sealedEvent
	var dt string
	err := sc.Scan(&e.id, &e.key.ClientID, &e.key.PatientUUID, &e.key.AssessmentType, &dt, &e.payload, &e.fhir, &e.snapshot)
	e.dataType = record.DataType(dt)
	return e, err
}

// resealEvents rewrites the payloads (or snapshots) and Bundles of a page
// of events. A
// payload that opens with no key in force is left for the operator to see
// in the report (its deliveries fail as payload_unreadable).
func (s *Shared) resealEvents(ctx context.Context, pg *page) error {
	events, err := queryAll(ctx, s.db, scanEvent, "SELECT e.id, r.client_id, r.patient_uuid, r.assessment_type, e.data_type, e.payload, e.fhir, e.snapshot"+
		" FROM events e JOIN records r ON r.id = e.record_id WHERE e.id > ? AND e.payload IS NOT NULL ORDER BY e.id LIMIT ?", pg.last, resealPage)
	if err != nil {
		return err
	}
	pg.seen = len(events)
	for _, e := range events {
		pg.last = e.id
		if s.codec.Keys.KeyID(e.payload) == s.codec.Keys.PrimaryID() {
			pg.byKey[s.codec.Keys.PrimaryID()]++
			continue
		}
		body, err := s.codec.Keys.Open(e.payload, bodyAD(e.key, e.dataType, e.snapshot))
		var bundle []byte
		if err == nil && e.fhir != nil {
			bundle, err = s.codec.Keys.Open(e.fhir, fhirAD(e.key, e.dataType))
		}
		if err != nil {
			pg.byKey[s.codec.Keys.KeyID(e.payload)]++
			continue
		}
		pg.writes = append(pg.writes, Stmt{"UPDATE events SET payload = ?, fhir = ? WHERE id = ? AND payload = ?",
			[]any{s.codec.sealBody(e.key, e.dataType, body, e.snapshot), s.codec.sealFHIR(e.key, e.dataType, bundle), e.id, e.payload}})
	}
	return nil
}

// sealedResponse is an attempt's sealed answer, bound to its delivery's
// message id.
type sealedResponse struct {
	id        int64
	messageID string
	response  []byte
}

func scanResponse(sc Scanner) (sealedResponse, error) {
	var r sealedResponse
	err := sc.Scan(&r.id, &r.messageID, &r.response)
	return r, err
}

// resealResponses rewrites the saved answers of a page of attempts.
func (s *Shared) resealResponses(ctx context.Context, pg *page) error {
	responses, err := queryAll(ctx, s.db, scanResponse, "SELECT a.id, d.message_id, a.response FROM attempts a JOIN deliveries d ON d.id = a.delivery_id"+
		" WHERE a.id > ? AND a.response IS NOT NULL ORDER BY a.id LIMIT ?", pg.last, resealPage)
	if err != nil {
		return err
	}
	pg.seen = len(responses)
	for _, r := range responses {
		pg.last = r.id
		if s.codec.Keys.KeyID(r.response) == s.codec.Keys.PrimaryID() {
			pg.byKey[s.codec.Keys.PrimaryID()]++
			continue
		}
		body, err := s.codec.Keys.Open(r.response, responseAD(r.messageID))
		if err != nil {
			pg.byKey[s.codec.Keys.KeyID(r.response)]++
			continue
		}
		pg.writes = append(pg.writes, Stmt{"UPDATE attempts SET response = ? WHERE id = ? AND response = ?",
			[]any{s.codec.SealResponse(r.messageID, body), r.id, r.response}})
	}
	return nil
}
