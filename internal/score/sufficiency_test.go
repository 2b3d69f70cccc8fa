package score_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/score"
)

// TestScoresExactlyWhenTheVitalsAreSufficient is the sufficiency rule as a
// property over random records: there are scores (every score and
// category of a verdict) exactly when the age is a known 18 or over and
// the five required vitals are all known; otherwise none at all, and
// resultsWithheld names the reason and, for missing vitals, exactly the
// fields missing. Whatever the answers and risk numbers say.
func TestScoresExactlyWhenTheVitalsAreSufficient(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 9))
	for range 20000 {
		in := randomInputs(rng)
		if rng.IntN(2) == 0 { // more records near sufficiency
			for _, v := range []**float64{&in.Systolic, &in.Diastolic, &in.HeartRate, &in.BreathingRate, &in.SpO2} {
				if *v == nil && rng.IntN(3) > 0 {
					*v = p(100)
				}
			}
		}
		r := score.Compute(in)
		var missing []string
		for i, v := range []*float64{in.Systolic, in.Diastolic, in.HeartRate, in.BreathingRate, in.SpO2} {
			if v == nil {
				missing = append(missing, score.RequiredVitals[i])
			}
		}
		adult := in.Age != nil && *in.Age >= 18
		sufficient := adult && len(missing) == 0
		verdict := []bool{r.Overall != nil, r.HealthCredit != nil, r.Equilibrium != nil, r.Activity != nil, r.Sleep != nil}
		for i, got := range verdict {
			if got != sufficient {
				t.Fatalf("age %s, missing %v: verdict part %d present = %v", num(in.Age), missing, i, got)
			}
		}
		if !sufficient && (r.Metabolism != nil || r.Relaxation != nil || r.StressIndex != nil ||
			r.MetabolismCategory != nil || r.EquilibriumCategory != nil || r.ActivityCategory != nil) {
			t.Fatalf("age %s, missing %v: a sub-score without a verdict", num(in.Age), missing)
		}
		switch {
		case sufficient:
			if r.Withheld != nil {
				t.Fatalf("scores and a withheld reason %+v", r.Withheld)
			}
		case r.Withheld == nil:
			t.Fatalf("age %s, missing %v: no scores and no reason", num(in.Age), missing)
		case in.Age == nil && r.Withheld.Reason != score.AgeUnknown,
			in.Age != nil && !adult && r.Withheld.Reason != score.Under18,
			adult && (r.Withheld.Reason != score.InsufficientMeasurements || !slices.Equal(r.Withheld.Fields, missing)):
			t.Fatalf("age %s, missing %v: withheld %+v", num(in.Age), missing, r.Withheld)
		}
	}
}
