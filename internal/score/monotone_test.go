package score_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pads-dev/pads/internal/score"
)

// A dimension is one numeric input with its accepted range (the intake
// catalogue's) and the interval where every rule of the model is at its
// best for it. Worsening moves the input away from that interval: down
// from its bottom, up from its top. Every threshold of the model for the
// input lies in fineLo-fineHi, walked in steps of fine (a quarter of a
// whole reading for vital signs, so x.5 rounding is crossed too); outside
// it no rule changes, and the walk takes a hundred coarse steps.
type dimension struct {
	name           string
	min, max       float64 // accepted range
	bestLo, bestHi float64
	fine           float64
	fineLo, fineHi float64
	get            func(*score.Inputs) **float64
}

var dimensions = []dimension{
	// Systolic: blood pressure part 1 on 90-119, wellness 1 on 90-139, NEWS2 0 on 111-219.
	{"systolic", 40, 300, 111, 119, 0.25, 40, 230, func(in *score.Inputs) **float64 { return &in.Systolic }},
	{"diastolic", 20, 200, 60, 79, 0.25, 20, 130, func(in *score.Inputs) **float64 { return &in.Diastolic }},
	// Heart rate: wellness 1 on 50-100, NEWS2 0 on 51-90.
	{"heart rate", 20, 300, 51, 90, 0.25, 20, 150, func(in *score.Inputs) **float64 { return &in.HeartRate }},
	{"breathing rate", 2, 80, 12, 20, 0.25, 2, 35, func(in *score.Inputs) **float64 { return &in.BreathingRate }},
	{"SpO2", 50, 100, 96, 100, 0.25, 50, 100, func(in *score.Inputs) **float64 { return &in.SpO2 }},
	{"HRV", 0, 1000, 1000, 1000, 0.25, 0, 100, func(in *score.Inputs) **float64 { return &in.HRV }},
	{"BMI", score.MinBMI, score.MaxBMI, 18.5, 24.99, 0.05, 10, 45, func(in *score.Inputs) **float64 { return &in.BMI }},
	{"total cholesterol", 0, 1000, 0, 0, 1, 0, 300, func(in *score.Inputs) **float64 { return &in.TotalChol }},
	{"LDL", 0, 1000, 0, 0, 1, 0, 250, func(in *score.Inputs) **float64 { return &in.LDL }},
	{"HDL", 0, 300, 300, 300, 1, 0, 80, func(in *score.Inputs) **float64 { return &in.HDL }},
	{"triglycerides", 0, 5000, 0, 0, 1, 0, 600, func(in *score.Inputs) **float64 { return &in.Triglycerides }},
	{"metabolic syndrome", 0, 100, 0, 0, 0.25, 0, 6, func(in *score.Inputs) **float64 { return &in.MetSComponents }},
	{"10-year CVD risk", 0, 100, 0, 0, 0.1, 0, 25, func(in *score.Inputs) **float64 { return &in.TenYearCVD }},
}

// walks are the two sequences of values of d, each worse than the one
// before: down from bestLo to min, up from bestHi to max.
func (d dimension) walks() [2][]float64 {
	step := func(x float64) float64 {
		if x >= d.fineLo && x <= d.fineHi {
			return d.fine
		}
		return max(d.fine, (d.max-d.min)/100)
	}
	var w [2][]float64
	for x := d.bestLo; x >= d.min; x -= step(x) {
		w[0] = append(w[0], x)
	}
	for x := d.bestHi; x <= d.max; x += step(x) {
		w[1] = append(w[1], x)
	}
	return w
}

// booleans worsen from false to true.
var booleans = []struct {
	name string
	get  func(*score.Inputs) **bool
}{
	{"smoker", func(in *score.Inputs) **bool { return &in.Smoker }},
	{"diabetic", func(in *score.Inputs) **bool { return &in.Diabetic }},
	{"hypertension", func(in *score.Inputs) **bool { return &in.Hypertension }},
	{"irregular heartbeats", func(in *score.Inputs) **bool { return &in.IrregularHeartBeats }},
}

// ageBands are one age in each band the model treats apart: unknown,
// under 16, 16-17, 18-19, 20-39, 40-75, over 75.
var ageBands = []*float64{nil, p(10), p(17), p(19), p(30), p(50), p(80)}

// randomInputs draws a plausible record: every value in its accepted
// range, some unknown, often near the normal ranges so that not every
// record is already a red flag.
func randomInputs(rng *rand.Rand) score.Inputs {
	maybe := func(lo, hi float64) *float64 {
		if rng.IntN(6) == 0 {
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
		return b(rng.IntN(3) == 0)
	}
	vital := func(lo, hi, normalLo, normalHi float64) *float64 {
		if rng.IntN(4) > 0 {
			return maybe(normalLo, normalHi)
		}
		return maybe(lo, hi)
	}
	in := score.Inputs{
		Systolic: vital(40, 300, 95, 150), Diastolic: vital(20, 200, 55, 95), HeartRate: vital(20, 300, 45, 110),
		BreathingRate: vital(2, 80, 10, 22), SpO2: vital(50, 100, 92, 100),
		HRV: maybe(0, 150), BMI: maybe(score.MinBMI, 45), TotalChol: maybe(100, 300), HDL: maybe(20, 90),
		LDL: maybe(50, 220), Triglycerides: maybe(50, 600), MetSComponents: maybe(0, 6), TenYearCVD: maybe(0, 40),
		Smoker: maybeB(), Diabetic: maybeB(), Hypertension: maybeB(), IrregularHeartBeats: maybeB(),
	}
	if in.HRV != nil {
		in.HRVMeasure = score.HRVMeasure(1 + rng.IntN(2))
	}
	in.Age = ageBands[rng.IntN(len(ageBands))]
	return in
}

// singleAbnormal are the worked example with one input abnormal: each
// red flag, each finding, and a few inputs unknown.
func singleAbnormal() map[string]func(*score.Inputs) {
	return map[string]func(*score.Inputs){
		"stage 2":          func(in *score.Inputs) { in.Systolic = p(150) },
		"stage 1":          func(in *score.Inputs) { in.Diastolic = p(85) },
		"elevated":         func(in *score.Inputs) { in.Systolic = p(125) },
		"above 180/120":    func(in *score.Inputs) { in.Systolic = p(200) },
		"below 90/60":      func(in *score.Inputs) { in.Diastolic = p(55) },
		"tachycardia":      func(in *score.Inputs) { in.HeartRate = p(115) },
		"bradycardia":      func(in *score.Inputs) { in.HeartRate = p(45) },
		"heart rate 135":   func(in *score.Inputs) { in.HeartRate = p(135) },
		"heart rate 38":    func(in *score.Inputs) { in.HeartRate = p(38) },
		"irregular":        func(in *score.Inputs) { in.IrregularHeartBeats = b(true) },
		"tachypnoea":       func(in *score.Inputs) { in.BreathingRate = p(23) },
		"bradypnoea":       func(in *score.Inputs) { in.BreathingRate = p(10) },
		"breathing 30":     func(in *score.Inputs) { in.BreathingRate = p(30) },
		"SpO2 93":          func(in *score.Inputs) { in.SpO2 = p(93) },
		"SpO2 88":          func(in *score.Inputs) { in.SpO2 = p(88) },
		"NEWS2 5":          func(in *score.Inputs) { in.BreathingRate, in.SpO2, in.Systolic = p(22), p(95), p(105) },
		"low HRV":          func(in *score.Inputs) { in.HRV = p(15) },
		"underweight":      func(in *score.Inputs) { in.BMI = p(17) },
		"obesity I":        func(in *score.Inputs) { in.BMI = p(32) },
		"obesity II":       func(in *score.Inputs) { in.BMI = p(37) },
		"high cholesterol": func(in *score.Inputs) { in.TotalChol = p(260) },
		"high LDL":         func(in *score.Inputs) { in.LDL = p(170) },
		"low HDL":          func(in *score.Inputs) { in.HDL = p(35) },
		"high TG":          func(in *score.Inputs) { in.Triglycerides = p(300) },
		"metabolic":        func(in *score.Inputs) { in.MetSComponents = p(3) },
		"risk 25%":         func(in *score.Inputs) { in.TenYearCVD = p(25) },
		"risk 10%":         func(in *score.Inputs) { in.TenYearCVD = p(10) },
		"hypertension":     func(in *score.Inputs) { in.Hypertension = b(true) },
		"diabetic":         func(in *score.Inputs) { in.Diabetic = b(true) },
		"smoker":           func(in *score.Inputs) { in.Smoker = b(true) },
		"no SpO2":          func(in *score.Inputs) { in.SpO2 = nil },
		"no HRV":           func(in *score.Inputs) { in.HRV, in.HRVMeasure = nil, 0 },
		"no lipids":        func(in *score.Inputs) { in.TotalChol, in.LDL, in.HDL, in.Triglycerides = nil, nil, nil, nil },
	}
}

// backgrounds are the records the walks start from: the worked example
// and each single-abnormal record at every age band, and n random records
// (their age bands drawn too).
func backgrounds(n int) map[string]score.Inputs {
	out := map[string]score.Inputs{}
	for _, age := range ageBands {
		in := normalAdult()
		in.Age = age
		out["healthy, age "+num(age)] = in
		for name, set := range singleAbnormal() {
			in := normalAdult()
			in.Age = age
			set(&in)
			out[name+", age "+num(age)] = in
		}
	}
	rng := rand.New(rand.NewPCG(22, 3))
	for i := range n {
		out[fmt.Sprintf("random %d", i)] = randomInputs(rng)
	}
	return out
}

// TestWorseningNeverImproves is the monotonicity proof of docs/scoring.md:
// over every background, each numeric input is walked over its whole
// accepted range away from its best interval, in steps of at most its
// fine step where any rule can change, and each boolean is turned from
// false (or unknown) to true; no step may raise a score, lower the rank of
// a category, or drop a flag without one at least as severe about the
// same measurement.
func TestWorseningNeverImproves(t *testing.T) {
	t.Parallel()
	n := 1000
	if raceEnabled || testing.Short() {
		n = 60 // the race detector makes each step ~10x slower; the full grid runs without it
	}
	steps, bgs := 0, backgrounds(n)
	for name, bg := range bgs {
		for _, d := range dimensions {
			for _, walk := range d.walks() {
				prev, prevIn := score.Result{}, score.Inputs{}
				for i, x := range walk {
					in := bg
					*d.get(&in) = &x
					if in.HRV != nil && in.HRVMeasure == 0 {
						in.HRVMeasure = score.SDNN
					}
					r := score.Compute(in)
					if i > 0 {
						if msg := improved(prev, r); msg != "" {
							t.Fatalf("%s, %s %s -> %v: %s\nbefore %s\nafter  %s", name, d.name, num(*d.get(&prevIn)), x, msg, describe(prev), describe(r))
						}
					}
					prev, prevIn = r, in
					steps++
				}
			}
		}
		for _, bo := range booleans {
			before, after := bg, bg
			*bo.get(&after) = b(true)
			if *bo.get(&before) == nil {
				*bo.get(&before) = b(false)
			}
			if msg := improved(score.Compute(before), score.Compute(after)); msg != "" {
				t.Fatalf("%s, %s turned true: %s", name, bo.name, msg)
			}
			steps++
		}
	}
	t.Logf("%d backgrounds, %d steps", len(bgs), steps)
}

// improved says how after is better than before, or "" when it is not.
func improved(before, after score.Result) string {
	sb, sa := allScores(&before), allScores(&after)
	for k := range sb {
		if (sb[k] == nil) != (sa[k] == nil) {
			return fmt.Sprintf("score %d went from %s to %s", k, num(sb[k]), num(sa[k]))
		}
		if sb[k] != nil && *sa[k] > *sb[k] {
			return fmt.Sprintf("score %d rose from %v to %v", k, *sb[k], *sa[k])
		}
	}
	cb, ca := categoryArray(&before), categoryArray(&after)
	for i := range cb {
		if cb[i] != nil && ca[i] == nil { // no category to a category is a reading leaving "nothing proven"
			return fmt.Sprintf("category %d went from %s to none", i, str(cb[i]))
		}
		if cb[i] != nil && rank(*ca[i]) < rank(*cb[i]) {
			return fmt.Sprintf("category %d improved from %q to %q", i, *cb[i], *ca[i])
		}
	}
	for _, f := range before.Flags {
		kept := false
		for _, g := range after.Flags {
			kept = kept || (g.Measurement == f.Measurement && g.Severity >= f.Severity)
		}
		if !kept {
			return "flag " + f.ID + " dropped with none as severe about its measurement"
		}
	}
	if c := score.Cap(after.Flags); after.Overall != nil && *after.Overall > c {
		return fmt.Sprintf("overall %v above the cap %v of its flags", *after.Overall, c)
	}
	return ""
}

func allScores(r *score.Result) [7]*float64 {
	return [...]*float64{r.Activity, r.Sleep, r.Equilibrium, r.Metabolism, r.Overall, r.Relaxation, r.HealthCredit}
}

func categoryArray(r *score.Result) [13]*string {
	return [...]*string{r.BloodPressureCategory, r.HeartRateCategory, r.HeartRateVariabilityCategory, r.BreathingRateCategory,
		r.OxygenSaturationCategory, r.ActivityCategory, r.SleepCategory, r.EquilibriumCategory, r.MetabolismCategory,
		r.OverallHealthCategory, r.RelaxationCategory, r.HealthCreditCategory, r.StressIndex}
}

// rank orders every category value from best (0) to worst; a red flag is
// worst of all.
func rank(c string) int {
	if r, ok := ranks[c]; ok {
		return r
	}
	return 10 // a red flag
}

var ranks = map[string]int{
	"Excellent": 0, "Good": 1, "Fair": 2, "Poor": 3,
	"Exceptional": 0, "Very Good": 1,
	"Normal range": 0, "Elevated reading": 1, "High reading (stage 1 range)": 2, "High reading (stage 2 range)": 3,
	"Low reading": 1, "High reading": 1, "Below normal range": 1, "Normal range, irregular beats reported": 1,
	"Typical range": 0, "Above typical range": 0, "Below typical range": 1,
	"Low": 0, "Mild": 1, "Moderate": 2, "High": 3, "Very High": 4,
}

func describe(r score.Result) string {
	return fmt.Sprintf("overall %s credit %s flags %v categories %v withheld %v", num(r.Overall), num(r.HealthCredit), flagIDs(r.Flags),
		deref(categories(r)), r.Withheld)
}

func deref(cs []*string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = str(c)
	}
	return out
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
		for sys := 111.0; sys < 119; sys++ {
			if got, want := overall(sys, dia), overall(119, dia); got != want {
				t.Errorf("%v/%v: overall %v, want %v as at 119/%v", sys, dia, got, want, dia)
			}
		}
		if lo, hi := overall(119, dia), overall(120, dia); lo < hi {
			t.Errorf("119/%v scores %v, below 120/%v at %v", dia, lo, dia, hi)
		}
	}
}
