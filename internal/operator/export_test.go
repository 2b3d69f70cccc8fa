package operator_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/snapshot"
	"github.com/pads-dev/pads/internal/store"
)

// An export shows a result kept as a snapshot as the bodies it is
// delivered as: the seed payload, and with fhir the Bundle, built from the
// results stored at the save; an older result, with what was stored; a
// snapshot the retention sweep removed, as a removed body.
func TestAnExportShowsASnapshotsBodies(t *testing.T) {
	t.Parallel()
	rec := record.Record{Key: record.Key{ClientID: "acme", PatientUUID: "u", AssessmentType: "a"}, FunnelID: "f",
		Fields: record.Fields{HeartRateBpm: new(72.0), Age: new(40.0)}, UpdatedAt: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}
	snap, _, err := snapshot.Take(record.Sensitive, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := func(id int64, e store.ExportedEvent) store.ExportedEvent {
		e.ID, e.DataType = id, record.Sensitive
		return e
	}
	recs := []store.PatientRecord{{Record: rec, Events: []store.ExportedEvent{
		ev(1, store.ExportedEvent{Payload: snap, Snapshot: true}),
		ev(2, store.ExportedEvent{Payload: []byte(`{"old":1}`), FHIR: []byte(`{"resourceType":"Bundle"}`)}),
		ev(3, store.ExportedEvent{Snapshot: true}),
	}}}
	doc := operator.NewExportDocument("acme", recs, true, rec.UpdatedAt)
	raw, _ := json.Marshal(doc)
	var got struct {
		Records []struct {
			Results []struct {
				Payload, FHIR json.RawMessage
				BodyRemoved   bool
			}
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil || len(got.Records) != 1 || len(got.Records[0].Results) != 3 {
		t.Fatalf("export %s: %v", raw, err)
	}
	res := got.Records[0].Results
	wantJSON, _ := snapshot.Body(snapshot.FormatSeedJSON, record.Sensitive, snap, "")
	wantFHIR, _ := snapshot.Body(snapshot.FormatFHIR, record.Sensitive, snap, "")
	if string(res[0].Payload) != string(wantJSON) || string(res[0].FHIR) != string(wantFHIR) || res[0].BodyRemoved {
		t.Errorf("snapshot result: payload %s fhir %s", res[0].Payload, res[0].FHIR)
	}
	if string(res[1].Payload) != `{"old":1}` || string(res[1].FHIR) != `{"resourceType":"Bundle"}` {
		t.Errorf("older result: payload %s fhir %s", res[1].Payload, res[1].FHIR)
	}
	if string(res[2].Payload) != "null" || res[2].FHIR != nil || !res[2].BodyRemoved {
		t.Errorf("swept snapshot: payload %s fhir %s removed %v", res[2].Payload, res[2].FHIR, res[2].BodyRemoved)
	}
}
