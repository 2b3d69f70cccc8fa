package payload_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// TestDerivedValuesStayInsideTheAPIBounds: over random records, their
// values drawn over wider ranges than the API accepts today (records
// stored under older bounds: ibi from 100, BMIs of 5 to 150), every value
// the payload shows that the model derived lies inside the API's bounds
// for the field it fills: a heart rate from ibi inside heartRateBpm's
// 20-300, a weight in pounds inside weightLb's 2-1400 (and in kilograms
// inside weightKg's 1-650), an age inside 0-130, a height at most 8 ft, a
// BMI inside riskBmi's 10-80.
func TestDerivedValuesStayInsideTheAPIBounds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 14))
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	maybe := func(lo, hi float64) *float64 {
		if rng.IntN(3) == 0 {
			return nil
		}
		return new(lo + rng.Float64()*(hi-lo))
	}
	for range 20000 {
		f := record.Fields{Ibi: maybe(100, 3000), WeightKg: maybe(1, 650), WeightLb: maybe(2, 1400), HeightCm: maybe(30, 275),
			HeightFt: maybe(0, 8), HeightIn: maybe(0, 96), RiskBmi: maybe(5, 150), RiskRestingHeartRate: maybe(20, 300)}
		if rng.IntN(2) == 0 {
			dob := at.AddDate(-rng.IntN(200), 0, 0).Format(time.DateOnly)
			f.DateOfBirth = &dob
		}
		if rng.IntN(2) == 0 {
			f.Latest = &record.Latest{HeartRate: "ibi", Weight: "weightKg", Height: "heightCm", BMI: record.BodyFields}
		}
		p := payload.BuildSensitive(record.Record{Fields: f}, at)
		in := score.FromRecord(f, at)
		check := func(name string, v *float64, lo, hi float64) {
			if v != nil && (*v < lo || *v > hi) {
				t.Fatalf("%s %v outside %v-%v for %+v", name, *v, lo, hi, f)
			}
		}
		check("heartRateBpm", p.HeartRateBpm, 20, 300)
		check("weight (lb)", p.Weight, 2, 1400)
		check("age", p.Age, 0, 130)
		check("height (in)", in.HeightIn, 0, 96)
		check("BMI", in.BMI, 10, 80)
		if kg, _ := score.Weight(f); kg != nil {
			check("weight (kg)", kg, 1, 650)
		}
	}
}
