package payload_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// randomRecord draws the measurement fields of a record from the intake
// ranges, each present or not, so that every source order and every
// plausibility rule is exercised.
func randomRecord(rng *rand.Rand) record.Fields {
	maybe := func(lo, hi float64) *float64 {
		if rng.IntN(2) == 0 {
			return nil
		}
		return new(lo + rng.Float64()*(hi-lo))
	}
	maybeB := func() *bool {
		if rng.IntN(2) == 0 {
			return nil
		}
		return new(rng.IntN(2) == 0)
	}
	return record.Fields{
		Age: maybe(0, 100), HeightFt: maybe(0, 8), HeightIn: maybe(0, 96), HeightCm: maybe(30, 275),
		WeightLb: maybe(2, 1400), WeightKg: maybe(1, 650), HeartRateBpm: maybe(20, 300), HeartRateVariabilityMs: maybe(0, 200),
		IrregularHeartBeats: maybeB(), SystolicBloodPressureMmhg: maybe(40, 300), DiastolicBloodPressureMmhg: maybe(20, 200),
		BreathingRateBpm: maybe(2, 80), RiskBmi: maybe(5, 150), Oxygen: maybe(50, 100), RiskRestingHeartRate: maybe(20, 300),
		Rmssd: maybe(0, 200), Ibi: maybe(100, 3000), RiskTotalCholestrol: maybe(0, 400), Smoker: maybeB(),
	}
}

func same(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// TestPayloadShowsWhatTheModelUsed: over random records, every measurement
// of the sensitive payload is the value the model read, from the same
// source, or null when the model left it out.
func TestPayloadShowsWhatTheModelUsed(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 3))
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for range 5000 {
		f := randomRecord(rng)
		got := payload.BuildSensitive(record.Record{Fields: f}, at)
		in := score.FromRecord(f, at)
		for _, m := range []struct {
			name          string
			payload, used *float64
		}{
			{"systolic", got.SystolicBloodPressure, in.Systolic},
			{"diastolic", got.DiastolicBloodPressure, in.Diastolic},
			{"heart rate", got.HeartRateBpm, in.HeartRate},
			{"HRV", got.HeartRateVariabilityMs, in.HRV},
			{"breathing", got.BreathingRateBpm, in.BreathingRate},
			{"SpO2", got.OxygenSaturationPercent, in.SpO2},
			{"age", got.Age, in.Age},
		} {
			if !same(m.payload, m.used) {
				t.Fatalf("%s: payload %v, model %v for %+v", m.name, m.payload, m.used, f)
			}
		}
		if (got.Weight == nil) != (in.WeightLb == nil) || got.Weight != nil && math.Abs(*got.Weight-*in.WeightLb) > 0.05 {
			t.Fatalf("weight: payload %v, model %v lb for %+v", got.Weight, in.WeightLb, f)
		}
		if (got.Height == nil) != (in.HeightIn == nil) ||
			got.Height != nil && *got.Height != fmt.Sprintf(`%d'%d"`, int(math.Round(*in.HeightIn))/12, int(math.Round(*in.HeightIn))%12) {
			t.Fatalf("height: payload %v, model %v in for %+v", got.Height, in.HeightIn, f)
		}
		// The weight and height shown, when both are, make a plausible BMI,
		// and the BMI scored is riskBmi or theirs.
		if in.WeightLb != nil && in.HeightIn != nil {
			if bmi := score.BMIOf(*in.WeightLb*score.KgPerLb, *in.HeightIn); bmi < score.MinBMI-1e-6 || bmi > score.MaxBMI+1e-6 {
				t.Fatalf("weight and height of BMI %v shown for %+v", bmi, f)
			}
		}
		if in.BMI != nil && !score.PlausibleBMI(*in.BMI) {
			t.Fatalf("implausible BMI %v scored for %+v", *in.BMI, f)
		}
		// A category is given only with the measurement it describes.
		for _, c := range []struct {
			name string
			cat  *string
			m    *float64
		}{{"heart rate", got.HeartRateCategory, got.HeartRateBpm}, {"HRV", got.HeartRateVariabilityCategory, got.HeartRateVariabilityMs},
			{"breathing", got.BreathingRateCategory, got.BreathingRateBpm}, {"SpO2", got.OxygenSaturationCategory, got.OxygenSaturationPercent}} {
			if c.cat != nil && c.m == nil {
				t.Fatalf("%s category %q without its measurement for %+v", c.name, *c.cat, f)
			}
		}
	}
}

// TestOneSourceOrderPerMeasurement pins the cases the pads-score-1 review
// found: a heart rate from ibi, HRV from SDNN before RMSSD, the weight
// given last for the payload and BMI alike.
func TestOneSourceOrderPerMeasurement(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	build := func(f record.Fields) payload.Sensitive {
		f.Age = new(45.0)
		return payload.BuildSensitive(record.Record{Fields: f}, at)
	}
	if got := build(record.Fields{Ibi: new(800.0)}); got.HeartRateBpm == nil || *got.HeartRateBpm != 75 || got.HeartRateCategory == nil {
		t.Errorf("heart rate from ibi 800: %v, category %v", got.HeartRateBpm, got.HeartRateCategory)
	}
	if got := build(record.Fields{Ibi: new(813.0)}); got.HeartRateBpm == nil || *got.HeartRateBpm != 73.8 {
		t.Errorf("heart rate from ibi 813: %v, want 73.8 (to 0.1 bpm)", got.HeartRateBpm)
	}
	got := build(record.Fields{HeartRateVariabilityMs: new(40.0), Rmssd: new(10.0)})
	if *got.HeartRateVariabilityMs != 40 || *got.HeartRateVariabilityCategory != score.TypicalRange {
		t.Errorf("SDNN 40 with RMSSD 10: shows %v, %q", *got.HeartRateVariabilityMs, *got.HeartRateVariabilityCategory)
	}
	got = build(record.Fields{Rmssd: new(10.0)})
	if *got.HeartRateVariabilityMs != 10 || *got.HeartRateVariabilityCategory != score.BelowTypicalRange {
		t.Errorf("RMSSD 10 alone: shows %v, %q", *got.HeartRateVariabilityMs, *got.HeartRateVariabilityCategory)
	}
	f := record.Fields{WeightKg: new(70.0), WeightLb: new(300.0), HeightFt: new(5.0), HeightIn: new(10.0),
		Latest: &record.Latest{Weight: "weightLb"}}
	if in := score.FromRecord(f, at); *in.WeightLb != 300 || math.Abs(*in.BMI-43.04) > 0.01 {
		t.Errorf("weightLb 300 and weightKg 70: model weight %v lb, BMI %v; want 300 lb, 43.04", *in.WeightLb, *in.BMI)
	}
	if got := build(f); *got.Weight != 300 {
		t.Errorf("payload weight %v, want 300", *got.Weight)
	}
}
