package score_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/score"
)

// A dimension is one input with its accepted range (the intake catalogue's)
// and the interval where every rule of the model is at its best for it.
// Worsening moves the input away from that interval: down from below it,
// up from above it, either way from inside.
type dimension struct {
	name           string
	min, max       float64 // accepted range
	bestLo, bestHi float64
	get            func(*score.Inputs) **float64
}

var dimensions = []dimension{
	// Systolic: blood pressure part 1 on 90-119, wellness 1 on 90-139, NEWS2 0 on 111-219.
	{"systolic", 40, 300, 111, 119, func(in *score.Inputs) **float64 { return &in.Systolic }},
	{"diastolic", 20, 200, 60, 79, func(in *score.Inputs) **float64 { return &in.Diastolic }},
	// Heart rate: wellness 1 on 50-100, NEWS2 0 on 51-90.
	{"heart rate", 20, 300, 51, 90, func(in *score.Inputs) **float64 { return &in.HeartRate }},
	{"breathing rate", 2, 80, 12, 20, func(in *score.Inputs) **float64 { return &in.BreathingRate }},
	{"SpO2", 50, 100, 96, 100, func(in *score.Inputs) **float64 { return &in.SpO2 }},
	{"HRV", 0, 1000, 1000, 1000, func(in *score.Inputs) **float64 { return &in.HRV }},
	{"BMI", score.MinBMI, score.MaxBMI, 18.5, 24.99, func(in *score.Inputs) **float64 { return &in.BMI }},
	{"total cholesterol", 0, 1000, 0, 0, func(in *score.Inputs) **float64 { return &in.TotalChol }},
	{"LDL", 0, 1000, 0, 0, func(in *score.Inputs) **float64 { return &in.LDL }},
	{"HDL", 0, 300, 300, 300, func(in *score.Inputs) **float64 { return &in.HDL }},
	{"triglycerides", 0, 5000, 0, 0, func(in *score.Inputs) **float64 { return &in.Triglycerides }},
	{"metabolic syndrome", 0, 100, 0, 0, func(in *score.Inputs) **float64 { return &in.MetSComponents }},
	{"10-year CVD risk", 0, 100, 0, 0, func(in *score.Inputs) **float64 { return &in.TenYearCVD }},
}

// worse returns a value of d further from its best interval than x.
func (d dimension) worse(rng *rand.Rand, x float64) float64 {
	up := x > d.bestHi || (x >= d.bestLo && rng.IntN(2) == 0)
	if up {
		return x + rng.Float64()*(d.max-x)
	}
	return x - rng.Float64()*(x-d.min)
}

// randomInputs draws a record: every value in its accepted range, some
// unknown; mostly adults, some children, teenagers and unknown ages.
func randomInputs(rng *rand.Rand) score.Inputs {
	maybe := func(lo, hi float64) *float64 {
		if rng.IntN(5) == 0 {
			return nil
		}
		v := lo + rng.Float64()*(hi-lo)
		if rng.IntN(2) == 0 {
			v = float64(int(v)) // whole readings hit the thresholds exactly
		}
		return &v
	}
	maybeB := func() *bool {
		if rng.IntN(3) == 0 {
			return nil
		}
		return b(rng.IntN(2) == 0)
	}
	// Draw around the normal ranges often, so flags do not hide everything.
	vital := func(lo, hi, normalLo, normalHi float64) *float64 {
		if rng.IntN(3) > 0 {
			return maybe(normalLo, normalHi)
		}
		return maybe(lo, hi)
	}
	in := score.Inputs{
		Systolic: vital(40, 300, 95, 150), Diastolic: vital(20, 200, 55, 95), HeartRate: vital(20, 300, 45, 110),
		BreathingRate: vital(2, 80, 10, 22), SpO2: vital(50, 100, 92, 100),
		HRV: maybe(0, 150), BMI: maybe(score.MinBMI, score.MaxBMI), TotalChol: maybe(100, 300), HDL: maybe(20, 90),
		LDL: maybe(50, 220), Triglycerides: maybe(50, 600), MetSComponents: maybe(0, 6), TenYearCVD: maybe(0, 40),
		Smoker: maybeB(), Diabetic: maybeB(), IrregularHeartBeats: maybeB(),
	}
	if in.HRV != nil {
		in.HRVMeasure = score.HRVMeasure(1 + rng.IntN(2))
	}
	switch rng.IntN(10) {
	case 0:
	case 1:
		in.Age = p(float64(rng.IntN(18)))
	default:
		in.Age = p(float64(18 + rng.IntN(80)))
	}
	return in
}

// TestWorseningOneInputNeverRaisesAScore: over thousands of random records,
// worsening any single input never raises a score, never clears a red
// flag, and never turns a red-flag category back into a good one.
func TestWorseningOneInputNeverRaisesAScore(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 2))
	worsenBool := []struct {
		name string
		get  func(*score.Inputs) **bool
	}{
		{"smoker", func(in *score.Inputs) **bool { return &in.Smoker }},
		{"diabetic", func(in *score.Inputs) **bool { return &in.Diabetic }},
		{"irregular heartbeats", func(in *score.Inputs) **bool { return &in.IrregularHeartBeats }},
	}
	checked := 0
	for range 4000 {
		before := randomInputs(rng)
		rb := score.Compute(before)
		for _, d := range dimensions {
			v := *d.get(&before)
			if v == nil {
				continue
			}
			after := before
			*d.get(&after) = p(d.worse(rng, *v))
			compareWorse(t, d.name, before, after, rb, score.Compute(after))
			checked++
		}
		for _, w := range worsenBool {
			if v := *w.get(&before); v == nil || *v {
				continue
			}
			after := before
			*w.get(&after) = b(true)
			compareWorse(t, w.name, before, after, rb, score.Compute(after))
			checked++
		}
	}
	if checked < 30000 {
		t.Fatalf("only %d worsenings checked", checked)
	}
}

func compareWorse(t *testing.T, name string, before, after score.Inputs, rb, ra score.Result) {
	t.Helper()
	sb, sa := scores(rb), scores(ra)
	sb["credit"], sa["credit"] = rb.HealthCredit, ra.HealthCredit
	for k := range sb {
		if (sb[k] == nil) != (sa[k] == nil) {
			t.Fatalf("%s: %s went from %s to %s\nbefore %+v\nafter %+v", name, k, num(sb[k]), num(sa[k]), before, after)
		}
		if sb[k] != nil && *sa[k] > *sb[k] {
			t.Fatalf("%s: %s rose from %v to %v\nbefore %+v\nafter %+v", name, k, *sb[k], *sa[k], before, after)
		}
	}
	for _, f := range flagIDs(rb.Flags) {
		if !slices.Contains(flagIDs(ra.Flags), f) {
			t.Fatalf("%s: flag %s cleared\nbefore %+v\nafter %+v", name, f, before, after)
		}
	}
	if len(ra.Flags) > 0 && ra.Overall != nil && *ra.Overall > score.FlagCap {
		t.Fatalf("%s: overall %v with flags %v", name, *ra.Overall, flagIDs(ra.Flags))
	}
}

// TestLowerSystolicBelow120NeverScoresLess: below 120 a lower systolic
// reading does not lower any score until it reaches a red flag (systolic
// 90 scores 3 on NEWS2); pads-score-1 scored 119/55 below 120/55.
func TestLowerSystolicBelow120NeverScoresLess(t *testing.T) {
	t.Parallel()
	overall := func(sys, dia float64) float64 {
		in := normalAdult()
		in.Systolic, in.Diastolic = p(sys), p(dia)
		return *score.Compute(in).Overall
	}
	for _, dia := range []float64{50, 55, 65, 79, 85} {
		for sys := 91.0; sys < 119; sys++ {
			if got, want := overall(sys, dia), overall(119, dia); got != want {
				t.Errorf("%v/%v: overall %v, want %v as at 119/%v", sys, dia, got, want, dia)
			}
		}
		if lo, hi := overall(119, dia), overall(120, dia); lo < hi {
			t.Errorf("119/%v scores %v, below 120/%v at %v", dia, lo, dia, hi)
		}
	}
}
