package snapshot_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/snapshot"
)

// golden are the records of the payload golden vectors, each saved at a
// fixed time, with a key and timestamps as a stored record has them.
func golden(t *testing.T) map[string]record.Record {
	t.Helper()
	raw, err := os.ReadFile("../payload/testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Cases []struct {
			Name                  string        `json:"name"`
			Fields                record.Fields `json:"fields"`
			AssessmentCompletedAt time.Time     `json:"assessmentCompletedAt"`
		}
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 12, 0, 0, 123456789, time.UTC)
	out := map[string]record.Record{}
	for _, c := range in.Cases {
		out[c.Name] = record.Record{Key: record.Key{ClientID: "c1", PatientUUID: "0193a1b2-0000-7000-8000-000000000001", AssessmentType: "a"},
			FunnelID: "f1", Fields: c.Fields, CreatedAt: at.Add(-time.Hour), UpdatedAt: at, AssessmentCompletedAt: c.AssessmentCompletedAt}
	}
	if len(out) < 60 {
		t.Fatalf("%d golden records, want at least 60", len(out))
	}
	return out
}

// A body built at attempt time from the snapshot is, byte for byte, the
// body the save would have built: the seed payload and the FHIR Bundle,
// for every golden record and both data types.
func TestBodiesAreTheSavesBodies(t *testing.T) {
	for name, rec := range golden(t) {
		for _, dt := range []record.DataType{record.NonSensitive, record.Sensitive} {
			snap, model, err := snapshot.Take(dt, rec, nil)
			if err != nil || model != payload.Model {
				t.Fatalf("%s %s: take: model %q, %v", name, dt, model, err)
			}
			want, _, _ := payload.Encode(dt, rec)
			wantFHIR, _ := fhir.Encode(dt, rec)
			for _, c := range []struct {
				format string
				want   []byte
			}{{snapshot.FormatSeedJSON, want}, {snapshot.FormatFHIR, wantFHIR}} {
				got, err := snapshot.Body(c.format, dt, snap, "")
				if err != nil || !bytes.Equal(got, c.want) {
					t.Fatalf("%s %s %s: %v\n got %s\nwant %s", name, dt, c.format, err, got, c.want)
				}
			}
		}
	}
}

// A body is built from the stored results and model, never from a new
// run of the model: a snapshot whose results (or model) differ from what
// the model would say now sends what it holds.
func TestBodiesSendTheStoredResults(t *testing.T) {
	var rec record.Record
	for _, r := range golden(t) {
		rec = r
		break
	}
	snap, _, err := snapshot.Take(record.Sensitive, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s snapshot.Snapshot
	if err := json.Unmarshal(snap, &s); err != nil {
		t.Fatal(err)
	}
	odd, cat := 12.5, "stored-category"
	s.Result.Overall, s.Result.OverallHealthCategory, s.Model = &odd, &cat, "pads-score-0"
	stored, _ := json.Marshal(s)
	for _, format := range []string{snapshot.FormatSeedJSON, snapshot.FormatFHIR} {
		body, err := snapshot.Body(format, record.Sensitive, stored, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"12.5", "stored-category", "pads-score-0"} {
			if !strings.Contains(string(body), want) {
				t.Errorf("%s body lacks the stored %s: %s", format, want, body)
			}
		}
	}
}

// What does not open is an error, never a body.
func TestBodyRefuses(t *testing.T) {
	good, _, _ := snapshot.Take(record.Sensitive, record.Record{}, nil)
	noResults, _ := json.Marshal(snapshot.Snapshot{Version: 1})
	for _, c := range []struct {
		name, format string
		snap         []byte
	}{
		{"not JSON", snapshot.FormatSeedJSON, []byte("{")},
		{"other layout", snapshot.FormatSeedJSON, []byte(`{"v":2}`)},
		{"sensitive without results", snapshot.FormatFHIR, noResults},
		{"unknown format", "xml", good},
	} {
		if body, err := snapshot.Body(c.format, record.Sensitive, c.snap, ""); err == nil || body != nil {
			t.Errorf("%s: body %s, err %v", c.name, body, err)
		}
	}
	if _, err := snapshot.Body("xml", record.Sensitive, good, ""); !errors.Is(err, snapshot.ErrFormat) {
		t.Errorf("unknown format: %v", err)
	}
}

// A results-updated body is the sensitive body of the same snapshot, plus
// the message id it updates for the destination it goes to: in seed JSON
// one field at the end, in FHIR one more tag; a destination it names no
// message for (an export) gets null and no tag.
func TestAResultsUpdatedBodyIsTheSensitiveBodyNamingTheMessageItUpdates(t *testing.T) {
	updates := map[string]string{"ehr": "msg_0123456789abcdef0123456789abcdef"}
	for name, rec := range golden(t) {
		sens, _, _ := snapshot.Take(record.Sensitive, rec, nil)
		upd, _, err := snapshot.Take(record.ResultsUpdated, rec, updates)
		if err != nil {
			t.Fatal(err)
		}
		for _, dest := range []string{"ehr", "lab"} {
			want, _ := snapshot.Body(snapshot.FormatSeedJSON, record.Sensitive, sens, dest)
			got, err := snapshot.Body(snapshot.FormatSeedJSON, record.ResultsUpdated, upd, dest)
			id := "null"
			if updates[dest] != "" {
				id = `"` + updates[dest] + `"`
			}
			if wantUpd := append(want[:len(want)-1:len(want)-1], []byte(`,"updatesMessageId":`+id+`}`)...); err != nil || !bytes.Equal(got, wantUpd) {
				t.Fatalf("%s to %s: %v\n got %s\nwant %s", name, dest, err, got, wantUpd)
			}
			bundle, err := snapshot.Body(snapshot.FormatFHIR, record.ResultsUpdated, upd, dest)
			tag := `{"system":"https://pads.dev/fhir/CodeSystem/updates-message","code":"` + updates[dest] + `"}`
			if err != nil || !bytes.Contains(bundle, []byte(`"code":"results-updated"`)) || bytes.Contains(bundle, []byte(tag)) != (updates[dest] != "") {
				t.Fatalf("%s to %s: Bundle %v\n%s", name, dest, err, bundle)
			}
		}
	}
}
