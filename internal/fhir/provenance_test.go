package fhir_test

import (
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/record"
)

// methods lists the method codes of the Observation coded code in b.
func methods(b fhir.Bundle, code string) []string {
	for _, e := range b.Entry {
		if o, ok := e.Resource.(*fhir.Observation); ok && o.Code.Coding[0].Code == code && o.Method != nil {
			var out []string
			for _, c := range o.Method.Coding {
				out = append(out, c.Code)
			}
			return out
		}
	}
	return nil
}

// TestProvenanceFollowsTheSource: each measurement's method says where
// the value the model read came from: a heart rate from heartRateBpm is a
// camera estimate, from riskRestingHeartRate client-reported, from ibi
// computed by pads from a camera estimate; a BMI given is client-reported,
// one pads made from weight and height pads-computed. SpO2's LOINC code
// carries no display naming arterial blood.
func TestProvenanceFollowsTheSource(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		set  func(*record.Fields)
		code string
		want []string
	}{
		{"heartRateBpm", func(f *record.Fields) {}, "8867-4", []string{"camera-estimate"}},
		{"riskRestingHeartRate", func(f *record.Fields) { f.HeartRateBpm, f.RiskRestingHeartRate = nil, new(45.0) }, "8867-4", []string{"client-reported"}},
		{"ibi", func(f *record.Fields) { f.HeartRateBpm, f.Ibi = nil, new(1200.0) }, "8867-4", []string{"camera-estimate", "pads-computed"}},
		{"riskBmi", func(f *record.Fields) {}, "39156-5", []string{"client-reported"}},
		{"weight and height", func(f *record.Fields) { f.RiskBmi, f.WeightKg, f.HeightCm = nil, new(80.0), new(180.0) }, "39156-5", []string{"pads-computed"}},
	} {
		rec := normalAdult(t)
		tt.set(&rec.Fields)
		b := fhir.Build(record.Sensitive, rec, at)
		if got := methods(b, tt.code); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %s method %v, want %v", tt.name, tt.code, got, tt.want)
		}
	}
	b := fhir.Build(record.Sensitive, normalAdult(t), at)
	for _, e := range b.Entry {
		if o, ok := e.Resource.(*fhir.Observation); ok && o.Code.Coding[0].Code == "2708-6" && o.Code.Coding[0].Display != "" {
			t.Errorf("SpO2 coded with display %q", o.Code.Coding[0].Display)
		}
	}
}
