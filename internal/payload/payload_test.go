package payload_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
)

// The seed's outbound tables, typed from the seed, not from the code.
const (
	seedNonSensitive = `assessmentType funnelID uuid email firstName lastName phoneNumber zipCode biologicalSex age
		dateOfBirth city state IPAddress contactConsent formCompleted`
	seedSensitive = `assessmentType funnelID uuid email
		healthCreditScore systolicBloodPressure diastolicBloodPressure heartRateBpm heartRateVariabilityMs breathingRateBpm oxygenSaturationPercent weight age
		activityScore activityScoreMax sleepScore sleepScoreMax equilibriumScore equilibriumScoreMax metabolismScore metabolismScoreMax overallHealthScore overallHealthScoreMax relaxationScore relaxationScoreMax
		healthCreditCategory bloodPressureCategory heartRateCategory heartRateVariabilityCategory breathingRateCategory oxygenSaturationCategory activityCategory sleepCategory equilibriumCategory metabolismCategory overallHealthCategory relaxationCategory
		stressIndex sex height smokerStatus diabetic hypertension bpMedication
		assessmentCompleted`
	// additive are the fields pads-score-3 adds after the seed's, never
	// null: flags ([] when none), caveats and model; resultsWithheld is
	// null when there are scores.
	additive = `flags resultsWithheld caveats model`
)

func keys(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(raw, &m)
	return m
}

func TestPayloadFieldsAreExactlyTheSeedTables(t *testing.T) {
	t.Parallel()
	full := fullRecord()
	for _, tt := range []struct {
		name string
		got  map[string]any
		seed string
	}{
		{"non-sensitive, empty", keys(t, payload.BuildNonSensitive(record.Record{Fields: record.Fields{}}, now)), seedNonSensitive},
		{"non-sensitive, full", keys(t, payload.BuildNonSensitive(full, now)), seedNonSensitive},
		{"sensitive, empty", keys(t, payload.BuildSensitive(record.Record{Fields: record.Fields{}}, now)), seedSensitive + " " + additive},
		{"sensitive, full", keys(t, payload.BuildSensitive(full, now)), seedSensitive + " " + additive},
	} {
		want := strings.Fields(tt.seed)
		got := slices.Sorted(maps.Keys(tt.got))
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: fields %v, seed %v", tt.name, got, want)
		}
	}
	// Unknown is null, never absent; the Max fields are always 100.
	empty := keys(t, payload.BuildSensitive(record.Record{Fields: record.Fields{}}, now))
	for k, v := range empty {
		if strings.Contains(additive, k) {
			if v == nil {
				t.Errorf("%s is null for an empty record: it says why there are no scores", k)
			}
			continue
		}
		if strings.HasSuffix(k, "Max") {
			if v != 100.0 {
				t.Errorf("%s = %v, want 100", k, v)
			}
		} else if v != nil {
			t.Errorf("%s = %v for an empty record, want null", k, v)
		}
	}
	// Nothing of the full record beyond its non-sensitive fields leaks into
	// the non-sensitive payload.
	for k, v := range keys(t, payload.BuildNonSensitive(full, now)) {
		if v == nil {
			t.Errorf("non-sensitive %s is null for a full record", k)
		}
	}
}

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func fullRecord() record.Record {
	return record.Record{Fields: record.Fields{
		AssessmentType: new("faceScan"), FunnelID: new("acme-main"), PatientUUID: new("6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"),
		Email: new("ada@example.com"), FirstName: new("Ada"), LastName: new("Lovelace"), PhoneNumber: new("555-0100"), ZipCode: new("02134"),
		BiologicalSex: new("female"), Age: new(36.0), DateOfBirth: new("1990-02-28"), City: new("Boston"), State: new("MA"),
		IPAddress: new("192.0.2.1"), ContactConsent: new(true), FormCompleted: new(true), AssessmentCompleted: new(true),
		HeartRateBpm: new(62.0), SystolicBloodPressureMmhg: new(118.0), DiastolicBloodPressureMmhg: new(76.0), Oxygen: new(98.0),
		BreathingRateBpm: new(14.0), HeartRateVariabilityMs: new(55.0), Rmssd: new(45.0), WeightKg: new(60.0), HeightCm: new(165.0),
		Diabetic: new(false), Hypertension: new(false), HypertensionMedication: new(false), Smoker: new(false),
	}}
}

func TestConversions(t *testing.T) {
	t.Parallel()
	f := func(kv ...any) record.Fields {
		var out record.Fields
		for i := 0; i < len(kv); i += 2 {
			n, ok := record.FieldIndex(kv[i].(string))
			if !ok {
				t.Fatalf("no field %v", kv[i])
			}
			out.Set(n, kv[i+1])
		}
		return out
	}
	heights := []struct {
		fields record.Fields
		want   string
	}{
		{f("heightFt", 5.0, "heightIn", 10.0), `5'10"`},
		{f("heightIn", 70.0), `5'10"`},                 // a whole height in inches
		{f("heightFt", 6.0), "<nil>"},                  // feet alone: its inches may never have been sent
		{f("heightFt", 6.0, "heightIn", 0.0), `6'0"`},  // a whole number of feet
		{f("heightFt", 5.0, "heightIn", 11.6), `6'0"`}, // rounds to 72 in: 12 inches carry
		{f("heightFt", 5.0, "heightIn", 11.4), `5'11"`},
		{f("heightCm", 177.8), `5'10"`},                                    // 70.0 in
		{f("heightCm", 180.0), `5'11"`},                                    // 70.87 in
		{f("heightCm", 152.4), `5'0"`},                                     // 60 in
		{f("heightFt", 5.0, "heightIn", 10.0, "heightCm", 100.0), "<nil>"}, // disagree, nothing says which came last
		{f("heightFt", 5.0, "heightIn", 10.0, "heightCm", 178.0), `5'10"`}, // agree within 1 in: feet and inches first
		{f("heightIn", 36.0), `3'0"`},                                      // the shortest lone heightIn used
		{f("heightIn", 35.9), "<nil>"},                                     // inches whose feet are missing
		{f("heightIn", 10.0), "<nil>"},                                     // was 0'10" and a BMI of 1,085
		{f("heightIn", 10.0, "heightCm", 170.0), `5'7"`},                   // the next plausible source
		{f("heightFt", 8.0, "heightIn", 0.0), `8'0"`},
		{f("heightFt", 7.0, "heightIn", 20.0), "<nil>"},                    // 104 in: over 8 ft
		{f("heightIn", 100.0), "<nil>"},                                    // a lone heightIn over 8 ft, stored before pads-score-2
		{f("heightFt", 5.0, "heightIn", 10.0, "weightKg", 500.0), "<nil>"}, // BMI 158: weight and height both left out
		{f(), "<nil>"},
	}
	for _, h := range heights {
		if got := deref(payload.Height(h.fields)); got != h.want {
			t.Errorf("Height(%v) = %s, want %s", h.fields, got, h.want)
		}
	}
	weights := []struct {
		fields record.Fields
		want   float64
	}{
		{f("weightLb", 172.5), 172.5},
		{f("weightKg", 70.0), 154.3},                  // 70 * 2.20462 = 154.3234
		{f("weightKg", 100.0), 220.5},                 // 220.462
		{f("weightLb", 150.0, "weightKg", 10.0), -1},  // disagree, nothing says which came last
		{f("weightLb", 150.0, "weightKg", 68.5), 150}, // agree within 1 kg: pounds first
		{f("weightLb", 150.04), 150},
		{f("weightKg", 70.0, "heightCm", 80.0), -1}, // BMI 109: left out
	}
	for _, w := range weights {
		got := payload.WeightLb(w.fields)
		if w.want < 0 && got != nil || w.want >= 0 && (got == nil || *got != w.want) {
			t.Errorf("WeightLb(%v) = %v, want %v (-1: null)", w.fields, got, w.want)
		}
	}
	smokers := []struct {
		fields record.Fields
		want   string
	}{
		{f("smoker", true), "Current smoker"},
		{f("smoker", false), "Non-smoker"},
		{f("smokerRiskStatus", "former", "smoker", false), "Former smoker"},
		{f("smokerRiskStatus", "vapes"), "Unknown"},
		{f("smokerRiskStatus", "non-daily smoker", "smoker", true), "Current smoker"},
		{f(), "<nil>"},
	}
	for _, s := range smokers {
		if got := deref(payload.SmokerStatus(s.fields)); got != s.want {
			t.Errorf("SmokerStatus(%v) = %s, want %s", s.fields, got, s.want)
		}
	}
}

func TestAgeFromBirthDateAtTheAssessment(t *testing.T) {
	t.Parallel()
	rec := record.Record{Fields: record.Fields{DateOfBirth: new("1990-02-28")}}
	for _, tt := range []struct {
		at   time.Time
		want float64
	}{
		{time.Date(2026, 2, 27, 23, 0, 0, 0, time.UTC), 35},
		{time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC), 36},
	} {
		if got := payload.BuildSensitive(rec, tt.at).Age; got == nil || *got != tt.want {
			t.Errorf("age at %v = %v, want %v", tt.at, got, tt.want)
		}
	}
	// The assessment's completion time, when there is one, decides.
	rec.AssessmentCompletedAt = time.Date(2020, 3, 1, 0, 0, 0, 0, time.UTC)
	if got := payload.BuildSensitive(rec, now).Age; got == nil || *got != 30 {
		t.Errorf("age at the assessment = %v, want 30", got)
	}
	rec.Fields.Age = new(41.0) // disagrees with the birth date, and nothing says which came last
	if got := payload.BuildNonSensitive(rec, now).Age; got != nil {
		t.Errorf("contradictory age = %v, want null", *got)
	}
	rec.Fields.Latest = &record.Latest{Age: "age"} // the age was given last
	if got := payload.BuildNonSensitive(rec, now).Age; got == nil || *got != 41 {
		t.Errorf("age given last = %v, want 41", got)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestResultsAreWhatThePayloadCarries: Results is the result behind the
// sensitive payload, so comparing two Results compares what was sent.
func TestResultsAreWhatThePayloadCarries(t *testing.T) {
	t.Parallel()
	rec := fullRecord()
	r, p := payload.Results(rec, now), payload.BuildSensitive(rec, now)
	if r.Overall == nil || p.OverallHealthScore == nil || *r.Overall != *p.OverallHealthScore || len(r.Flags) != len(p.Flags) {
		t.Fatalf("Results %+v, payload overall %v flags %v", r, p.OverallHealthScore, p.Flags)
	}
	later := rec
	later.Fields.Oxygen = new(84.0)
	if payload.Results(later, now).Equal(r) || !payload.Results(rec, now).Equal(r) {
		t.Fatal("a red flag saved later must change the results; the same record must not")
	}
}
