package store

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/pads-dev/pads/internal/record"
)

func TestAppendFieldsRoundTripsThroughEncodingJSON(t *testing.T) {
	t.Parallel()
	tests := []record.Fields{
		{},
		{"a": "plain", "b": 72.0, "c": true, "d": false},
		{"quote": `say "hi"`, "backslash": `C:\dir`, "newline": "a\nb", "control": "\x01\x1f", "unicode": "Zoë 東京 😀", "html": "<a&b>"},
		{"tiny": 1e-9, "big": 1.5e300, "negative": -30.25, "zero": 0.0, "third": 1.0 / 3, "max": math.MaxFloat64},
	}
	for _, f := range tests {
		var back record.Fields
		raw := appendFields(nil, f)
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if len(f) == 0 && len(back) == 0 {
			continue
		}
		if !reflect.DeepEqual(back, f) {
			t.Fatalf("round trip of %v gave %v (%s)", f, back, raw)
		}
	}
}

func TestDecodeFieldsReadsWhatAppendFieldsWrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    record.Fields
		fast bool // read without encoding/json
	}{
		{record.Fields{}, true},
		{record.Fields{"a": "plain", "b": 72.0, "c": true, "d": false, "e": ""}, true},
		{record.Fields{"unicode": "Zoë 東京 😀", "html": "<a&b>", "tiny": 1e-9, "big": 1.5e300, "negative": -30.25, "zero": 0.0,
			"third": 1.0 / 3, "max": math.MaxFloat64}, true},
		{record.Fields{"quote": `say "hi"`, "plain": "x"}, false},
		{record.Fields{"backslash": `C:\dir`}, false},
		{record.Fields{"newline": "a\nb", "control": "\x01\x1f"}, false},
	}
	for _, tt := range tests {
		raw := appendFields(nil, tt.f)
		got, err := decodeFields(raw)
		if err != nil || !reflect.DeepEqual(got, tt.f) {
			t.Fatalf("decodeFields(%s) = %v, %v; want %v", raw, got, err, tt.f)
		}
		if _, fast := decodeFlat(raw); fast != tt.fast {
			t.Errorf("decodeFlat(%s) read it directly: %v, want %v", raw, fast, tt.fast)
		}
	}
}

func TestDecodeFieldsAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{}`, `{"a":1}`, `{"a":-0}`, `{"a":1e400}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":+1}`, `{"a":1e}`, `{"a":0x10}`,
		`{"a":1,"a":2}`, `{"a":"\u00e9"}`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"a":null}`, `{"a":[1]}`, `{"a":{"b":1}}`,
		`{ "a":1}`, `{"a":1 }`, `{"a":tru}`, `{"a":truex}`, `{"a":1,}`, `{"a"}`, `{"a":1}x`, `[]`, ``, `{`, `{"a":"b`, `{"":1}`,
	} {
		checkAgainstJSON(t, []byte(raw))
	}
}

func FuzzDecodeFields(f *testing.F) {
	f.Add([]byte(`{"a":"plain","b":72,"c":true,"d":-1.5e-3}`))
	f.Add(appendFields(nil, record.Fields{"q": `"`, "n": 0.1, "t": false}))
	f.Fuzz(func(t *testing.T, raw []byte) { checkAgainstJSON(t, raw) })
}

// checkAgainstJSON fails unless decodeFields gives what json.Unmarshal
// gives: the same fields, or an error for both.
func checkAgainstJSON(t *testing.T, raw []byte) {
	t.Helper()
	var want record.Fields
	wantErr := json.Unmarshal(raw, &want)
	got, err := decodeFields(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: decodeFields error %v, json.Unmarshal error %v", raw, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decodeFields = %#v, json.Unmarshal = %#v", raw, got, want)
	}
}

// BenchmarkDecodeFields reads back a record of the load test's fields.
func BenchmarkDecodeFields(b *testing.B) {
	f := record.Fields{"assessmentType": "faceScan", "funnelID": "load-main", "email": "patient-1@example.com",
		"patientUUID": "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", "IPAddress": "192.0.2.44", "smoker": "no",
		"smokerRiskStatus": "never", "diabetic": false, "hypertension": false, "irregularHeartBeats": false}
	for i, k := range []string{"heightFt", "heightIn", "weightLb", "heartRateBpm", "heartRateVariabilityMs", "systolicBloodPressureMmhg",
		"diastolicBloodPressureMmhg", "breathingRateBpm", "riskTotalCholestrol", "riskHdl", "riskLdl", "riskTriglycerdies",
		"riskBmi", "oxygen", "riskTenYrCvd", "riskFraminghamScore", "riskBapwv", "rmssd", "ibi"} {
		f[k] = float64(i) * 10.25
	}
	raw := appendFields(nil, f)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeFields(raw); err != nil {
			b.Fatal(err)
		}
	}
}
