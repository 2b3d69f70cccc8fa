package receiver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/snapshot"
	"github.com/pads-dev/pads/receiver"
)

// jsonNames lists the JSON names of t's fields in order ("-" left out).
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// The receiver's structs are its own (it imports nothing of pads), so
// this keeps them equal to what pads sends: the same JSON names, in the
// same order, for both payloads and every FHIR type.
func TestStructsCarryTheJSONNamesPadsSends(t *testing.T) {
	t.Parallel()
	pairs := []struct{ ours, pads any }{
		{receiver.NonSensitive{}, payload.NonSensitive{}},
		{receiver.Sensitive{}, payload.Sensitive{}},
		{receiver.Patient{}, fhir.Patient{}},
		{receiver.Observation{}, fhir.Observation{}},
		{receiver.Component{}, fhir.Component{}},
		{receiver.Identifier{}, fhir.Identifier{}},
		{receiver.HumanName{}, fhir.HumanName{}},
		{receiver.ContactPoint{}, fhir.ContactPoint{}},
		{receiver.Address{}, fhir.Address{}},
		{receiver.CodeableConcept{}, fhir.CodeableConcept{}},
		{receiver.Coding{}, fhir.Coding{}},
		{receiver.Quantity{}, fhir.Quantity{}},
		{receiver.Reference{}, fhir.Reference{}},
		{receiver.Entry{}, fhir.Entry{}},
		{receiver.Bundle{}, fhir.Bundle{}},
		{receiver.Flag{}, fhir.Flag{}},
		{receiver.Extension{}, fhir.Extension{}},
		{receiver.Period{}, fhir.Period{}},
		{receiver.Annotation{}, fhir.Annotation{}},
		{receiver.ResultsWithheld{}, payload.Withheld{}},
		{receiver.Caveat{}, payload.Caveat{}},
		{receiver.Finding{}, payload.Flag{}},
	}
	for _, p := range pairs {
		ours, pads := jsonNames(reflect.TypeOf(p.ours)), jsonNames(reflect.TypeOf(p.pads))
		if !slices.Equal(ours, pads) {
			t.Errorf("receiver.%T has %v; pads sends %v", p.ours, ours, pads)
		}
	}
	for sys, want := range map[string]string{receiver.LOINC: fhir.LOINC, receiver.PatientIdentifierSystem: fhir.PatientIdentifierSystem,
		receiver.ScoreSystem: fhir.ScoreSystem, receiver.EventSystem: fhir.EventSystem, receiver.FlagSystem: fhir.FlagSystem,
		receiver.UpdatesSystem: fhir.UpdatesSystem} {
		if sys != want {
			t.Errorf("system %s, pads uses %s", sys, want)
		}
	}
}

// Every golden payload and golden Bundle of pads decodes, as the event it
// is, and encodes back to the same JSON: the receiver's structs lose
// nothing pads sends.
func TestEveryGoldenBodyDecodesWithoutLoss(t *testing.T) {
	t.Parallel()
	roundTrip := func(name string, body []byte, event, format string) {
		d, err := receiver.Decode(body)
		if err != nil || d.Event != event || d.Format != format {
			t.Fatalf("%s: Decode = %+v, %v", name, d, err)
		}
		var back any = d.NonSensitive
		switch {
		case d.Sensitive != nil:
			back = d.Sensitive
		case d.Bundle != nil:
			back = d.Bundle
			if _, err := d.Bundle.Patient(); err != nil {
				t.Fatalf("%s: no Patient: %v", name, err)
			}
			obs, err := d.Bundle.Observations()
			for _, o := range obs {
				again, _ := json.Marshal(o)
				var want, got any
				json.Unmarshal(again, &got)
				for _, e := range d.Bundle.Entry {
					if e.FullURL == o.FullURL {
						json.Unmarshal(e.Resource, &want)
					}
				}
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: observation %s does not round-trip:\n%s", name, o.FullURL, again)
				}
			}
		}
		again, _ := json.Marshal(back)
		if !jsonEqual(again, body) {
			t.Fatalf("%s: decoded and encoded again:\n%s\nwant\n%s", name, again, body)
		}
	}
	files, _ := filepath.Glob("../internal/payload/testdata/golden/*.json")
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		var g struct{ NonSensitive, Sensitive json.RawMessage }
		json.Unmarshal(raw, &g)
		roundTrip(f+" nonSensitive", g.NonSensitive, receiver.EventNonSensitive, receiver.FormatSeedJSON)
		roundTrip(f+" sensitive", g.Sensitive, receiver.EventSensitive, receiver.FormatSeedJSON)
	}
	bundles, _ := filepath.Glob("../internal/fhir/testdata/golden/*.json")
	for _, f := range bundles {
		raw, _ := os.ReadFile(f)
		event := receiver.EventSensitive
		if strings.HasSuffix(f, ".non-sensitive.json") {
			event = receiver.EventNonSensitive
		}
		roundTrip(f, raw, event, receiver.FormatFHIR)
	}
	if len(files) < 60 || len(bundles) < 120 {
		t.Fatalf("%d payload and %d bundle golden files", len(files), len(bundles))
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func TestDecodeRefusesWhatIsNotPads(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`[]`, `{"hello":"world"}`, `{"resourceType":"Patient"}`,
		`{"resourceType":"Bundle","type":"collection"}`, `{"formCompleted":"yes"}`, `not json`} {
		if _, err := receiver.Decode([]byte(body)); !errors.Is(err, receiver.ErrNotPads) {
			t.Errorf("Decode(%s) = %v, want ErrNotPads", body, err)
		}
	}
}

func serve(h http.Handler, r *http.Request) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

func TestHandlerRefusesBadSignaturesAndTimestamps(t *testing.T) {
	t.Parallel()
	var handled atomic.Int64
	h, err := receiver.New(secret, func(context.Context, *receiver.Delivery) error { handled.Add(1); return nil },
		receiver.WithClock(func() time.Time { return now }), receiver.WithTolerance(time.Minute), receiver.WithMaxBodyBytes(4096))
	if err != nil {
		t.Fatal(err)
	}
	other := "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
	tests := []struct {
		name string
		req  *http.Request
		want int
	}{
		{"61s old", signed("msg_a", now.Add(-61*time.Second), identity), 401},
		{"61s ahead", signed("msg_b", now.Add(61*time.Second), identity), 401},
		{"body changed", func() *http.Request {
			r := signed("msg_c", now, identity)
			r.Body = httpBody(strings.Replace(identity, "Ada", "Eve", 1))
			return r
		}(), 401},
		{"id changed", func() *http.Request {
			r := signed("msg_d", now, identity)
			r.Header.Set("webhook-id", "msg_e")
			return r
		}(), 401},
		{"no signature", func() *http.Request { r := signed("msg_f", now, identity); r.Header.Del("webhook-signature"); return r }(), 401},
		{"another secret", func() *http.Request {
			r := signed("msg_g", now, identity)
			r.Header.Set("webhook-signature", signWith(other, "msg_g", now, identity))
			return r
		}(), 401},
		{"rotation: one good signature of several", func() *http.Request {
			r := signed("msg_h", now, identity)
			r.Header.Set("webhook-signature", signWith(other, "msg_h", now, identity)+" "+r.Header.Get("webhook-signature"))
			return r
		}(), 204},
		{"signed, not a pads payload", signed("msg_i", now, `{"hello":"world"}`), 400},
		{"too large", signed("msg_j", now, `{"formCompleted":true,"x":"`+strings.Repeat("a", 5000)+`"}`), 413},
		{"GET", httptest.NewRequest("GET", "/", nil), 405},
		{"59s old", signed("msg_k", now.Add(-59*time.Second), identity), 204},
	}
	for _, tt := range tests {
		if got := serve(h, tt.req); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
	if handled.Load() != 2 {
		t.Errorf("handled %d, want 2", handled.Load())
	}
}

func httpBody(s string) *readCloser { return &readCloser{strings.NewReader(s)} }

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

func signWith(secret, id string, at time.Time, body string) string {
	wh, _ := standardwebhooks.NewWebhook(secret)
	sig, _ := wh.Sign(id, at, []byte(body))
	return sig
}

// A failed HandleFunc answers 500 and is not remembered: pads' retry of
// the delivery is handled. Concurrent copies of one delivery are handled
// once.
func TestHandlerForgetsAFailureAndHandlesDuplicatesOnce(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := map[string]int{}
	h, _ := receiver.New(secret, func(_ context.Context, d *receiver.Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		calls[d.ID]++
		if d.ID == "msg_fail" && calls[d.ID] == 1 {
			return errors.New("queue full")
		}
		return nil
	}, receiver.WithClock(func() time.Time { return now }))
	if got := serve(h, signed("msg_fail", now, identity)); got != 500 {
		t.Fatalf("failing handler: %d", got)
	}
	if got := serve(h, signed("msg_fail", now, identity)); got != 204 {
		t.Fatalf("retry: %d", got)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { serve(h, signed("msg_dup", now, identity)) })
	}
	wg.Wait()
	if calls["msg_fail"] != 2 || calls["msg_dup"] != 1 {
		t.Fatalf("calls = %v", calls)
	}
}

func TestNewRefusesABadSecret(t *testing.T) {
	t.Parallel()
	if _, err := receiver.New("whsec_not base64!", func(context.Context, *receiver.Delivery) error { return nil }); err == nil {
		t.Fatal("a bad secret was accepted")
	}
	if _, err := receiver.New(secret, nil); err == nil {
		t.Fatal("no HandleFunc was accepted")
	}
}

// A results-updated body, in both formats, decodes as that event with its
// results and the message id it updates; one that names none (an export)
// decodes with none.
func TestAResultsUpdatedBodyNamesTheMessageItUpdates(t *testing.T) {
	t.Parallel()
	rec := record.Record{Key: record.Key{ClientID: "c1", PatientUUID: "0193a1b2-0000-7000-8000-000000000001", AssessmentType: "faceScan"},
		FunnelID: "f1", Fields: record.Fields{Age: new(40.0), HeartRateBpm: new(150.0), Oxygen: new(97.0)},
		UpdatedAt: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	rec.AssessmentCompletedAt = rec.UpdatedAt
	snap, _, err := snapshot.Take(record.ResultsUpdated, rec, map[string]string{"ehr": "msg_0123456789abcdef0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ format, destination, updates string }{
		{snapshot.FormatSeedJSON, "ehr", "msg_0123456789abcdef0123456789abcdef"},
		{snapshot.FormatFHIR, "ehr", "msg_0123456789abcdef0123456789abcdef"},
		{snapshot.FormatSeedJSON, "", ""},
		{snapshot.FormatFHIR, "", ""},
	} {
		body, err := snapshot.Body(tt.format, record.ResultsUpdated, snap, tt.destination)
		if err != nil {
			t.Fatal(err)
		}
		d, err := receiver.Decode(body)
		if err != nil || d.Event != receiver.EventResultsUpdated || d.Format != tt.format || d.Updates != tt.updates {
			t.Fatalf("%s for %q: Decode = %+v, %v", tt.format, tt.destination, d, err)
		}
		if tt.format == snapshot.FormatSeedJSON && (d.Sensitive == nil || *d.Sensitive.HeartRateBpm != 150) {
			t.Fatalf("results-updated payload: %s", body)
		}
		if tt.format == snapshot.FormatFHIR {
			if obs, err := d.Bundle.Observations(); err != nil || len(obs) == 0 {
				t.Fatalf("results-updated Bundle without Observations: %v", err)
			}
		}
	}
}
