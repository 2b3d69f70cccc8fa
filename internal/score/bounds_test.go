package score_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// reads is the specification of each sub-score's inputs (docs/scoring.md,
// "Scores"), written out here so that the test does not read the model's
// own table.
var reads = map[string][]score.Measurement{
	"metabolism": {score.BodyMassIndex, score.TotalCholesterol, score.LDLCholesterol, score.HDLCholesterol,
		score.TriglycerideLevel, score.MetabolicSyndrome, score.DiabetesHistory},
	"equilibrium": {score.BreathingRate, score.OxygenSaturation, score.BloodPressure, score.HeartRateReading, score.Rhythm, score.Combined},
	"relaxation":  {score.HeartRateReading, score.Rhythm, score.Combined},
	"activity":    {score.HeartRateReading, score.Rhythm, score.BodyMassIndex, score.Combined},
	"sleep":       {score.HeartRateReading, score.Rhythm, score.BreathingRate, score.Combined},
}

// TestSubScoresAreBoundedByTheFlagsOnTheirInputs: over random complete
// adult records, no sub-score exceeds the cap of a flag about one of its
// own inputs, and its category is never better than that cap's band (a
// red flag about SpO2 never sits beside an "Excellent" equilibrium).
func TestSubScoresAreBoundedByTheFlagsOnTheirInputs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 8))
	capped := 0
	for range 20000 {
		in := randomInputs(rng)
		in.Age = p(float64(18 + rng.IntN(80)))
		for _, v := range []**float64{&in.Systolic, &in.Diastolic, &in.HeartRate, &in.BreathingRate, &in.SpO2} {
			if *v == nil {
				*v = p(100)
			}
		}
		r := score.Compute(in)
		subs := map[string]struct {
			v *float64
			c *string
		}{"metabolism": {r.Metabolism, r.MetabolismCategory}, "equilibrium": {r.Equilibrium, r.EquilibriumCategory},
			"relaxation": {r.Relaxation, r.RelaxationCategory}, "activity": {r.Activity, r.ActivityCategory},
			"sleep": {r.Sleep, r.SleepCategory}}
		for name, s := range subs {
			if s.v == nil {
				continue
			}
			for _, f := range r.Flags {
				if !slices.Contains(reads[name], f.Measurement) {
					continue
				}
				capped++
				if *s.v > f.Severity.Cap() {
					t.Fatalf("%s %v above the cap %v of %s", name, *s.v, f.Severity.Cap(), f.ID)
				}
				if rank(str(s.c)) < rank(score.ScoreCategory(f.Severity.Cap())) { // rank 0 is best
					t.Fatalf("%s reads %q beside %s", name, str(s.c), f.ID)
				}
			}
		}
		if r.Relaxation != nil && str(r.StressIndex) != score.StressIndex(*r.Relaxation) {
			t.Fatalf("stress index %q of relaxation %v", str(r.StressIndex), *r.Relaxation)
		}
	}
	if capped < 1000 {
		t.Errorf("only %d sub-scores beside a flag on their inputs: draw more", capped)
	}
}

// TestAdultFindingsAtEveryAdultAge: a BMI outside 18.5-35 and high lipids
// are findings at every scored adult age, 18 and 19 included, and cap the
// verdict and the metabolism score; no such record reads better than the
// same record with a normal value.
func TestAdultFindingsAtEveryAdultAge(t *testing.T) {
	t.Parallel()
	abnormal := map[string]func(*score.Inputs){
		"bmi-obesity-2":           func(in *score.Inputs) { in.BMI = p(40) },
		"bmi-underweight":         func(in *score.Inputs) { in.BMI = p(16) },
		"ldl-very-high":           func(in *score.Inputs) { in.LDL = p(250) },
		"total-cholesterol-high":  func(in *score.Inputs) { in.TotalChol = p(260) },
		"triglycerides-very-high": func(in *score.Inputs) { in.Triglycerides = p(1000) },
		"hdl-low":                 func(in *score.Inputs) { in.HDL = p(30) },
		"bmi-obesity-1":           func(in *score.Inputs) { in.BMI = p(32) },
	}
	for age := 18.0; age <= 100; age++ {
		normal := normalAdult()
		normal.Age = p(age)
		base := score.Compute(normal)
		for id, set := range abnormal {
			in := normal
			set(&in)
			r := score.Compute(in)
			i := slices.IndexFunc(r.Flags, func(f score.Flag) bool { return f.ID == id })
			if i < 0 {
				t.Fatalf("age %v: %s not raised: %v", age, id, flagIDs(r.Flags))
			}
			c := r.Flags[i].Severity.Cap()
			if r.Overall == nil || *r.Overall > c || r.Metabolism == nil || *r.Metabolism > c {
				t.Fatalf("age %v, %s: overall %s metabolism %s, cap %v", age, id, num(r.Overall), num(r.Metabolism), c)
			}
			if *r.Overall > *base.Overall {
				t.Fatalf("age %v, %s: overall %v above the normal record's %v", age, id, *r.Overall, *base.Overall)
			}
		}
	}
}

// TestTheDateOfBirthDecides: whatever the age within the decoder's
// tolerance, a date of birth given with it in one save decides, so an age
// never makes a minor an adult; a later age that supersedes a date of
// birth leaves that date out of what is shown (BirthDate), and a birth
// date shown always gives the age scored.
func TestTheDateOfBirthDecides(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for days := 0; days < 365*40; days += 7 {
		dob := at.AddDate(0, 0, -days-17*365).Format(time.DateOnly)
		exact := score.YearsSince(&dob, at)
		for _, claimed := range []float64{*exact - 1, *exact, *exact + 1} {
			var f record.Fields
			f.Apply(&record.Patch{Values: record.Fields{Age: p(claimed), DateOfBirth: &dob}})
			age, bad := score.Age(f, at)
			if bad || num(age) != num(exact) {
				t.Fatalf("age %v with %s (%v years) in one save: read %s", claimed, dob, *exact, num(age))
			}
			if got := score.BirthDate(f, at); got == nil || *got != dob {
				t.Fatalf("agreeing date of birth %s not shown", dob)
			}
		}
		for _, later := range []float64{*exact + 30, *exact - 10} {
			if later < 0 {
				continue
			}
			var f record.Fields
			f.Apply(&record.Patch{Values: record.Fields{DateOfBirth: &dob}})
			f.Apply(&record.Patch{Values: record.Fields{Age: p(later)}})
			age, _ := score.Age(f, at)
			if num(age) != num(p(later)) || score.BirthDate(f, at) != nil {
				t.Fatalf("age %v after %s: age %s, birth date %v", later, dob, num(age), score.BirthDate(f, at))
			}
		}
	}
}

// TestASupersededBodyIsNotShown: over a grid of weights, heights and a
// later riskBmi, the weight and height BodyOf gives (what the payloads
// show) always make the BMI it gives within BMITolerance, or are left out.
func TestASupersededBodyIsNotShown(t *testing.T) {
	t.Parallel()
	for kg := 40.0; kg <= 160; kg += 10 {
		for cm := 150.0; cm <= 200; cm += 5 {
			for bmi := 15.0; bmi <= 45; bmi += 2.5 {
				for _, bmiLast := range []bool{false, true} {
					var f record.Fields
					first, second := record.Fields{WeightKg: p(kg), HeightCm: p(cm)}, record.Fields{RiskBmi: p(bmi)}
					if !bmiLast {
						first, second = second, first
					}
					f.Apply(&record.Patch{Values: first})
					f.Apply(&record.Patch{Values: second})
					body := score.BodyOf(f)
					if body.BMI == nil {
						t.Fatalf("%v kg %v cm then riskBmi %v: no BMI", kg, cm, bmi)
					}
					if body.WeightKg != nil && body.HeightIn != nil {
						if d := score.BMIOf(*body.WeightKg, *body.HeightIn) - *body.BMI; d > score.BMITolerance || d < -score.BMITolerance {
							t.Fatalf("%v kg %v cm, riskBmi %v (last %v): shows a body of BMI %.1f beside BMI %v",
								kg, cm, bmi, bmiLast, score.BMIOf(*body.WeightKg, *body.HeightIn), *body.BMI)
						}
					}
					if (body.WeightKg == nil) != (body.WeightLb == nil) {
						t.Fatalf("weight in one unit only")
					}
				}
			}
		}
	}
}

// TestAgreeingHeartRatesResolveToTheWorse: over every pair of heart rates
// one save may give together (within HeartRateTolerance), the rate scored
// is the one farther from the middle of the normal range, so fields that
// straddle a threshold never resolve to the milder; and no pair scores
// better than either of its fields alone.
func TestAgreeingHeartRatesResolveToTheWorse(t *testing.T) {
	t.Parallel()
	for bpm := 20.0; bpm <= 300; bpm++ {
		for d := -score.HeartRateTolerance; d <= score.HeartRateTolerance; d++ {
			other := bpm + d
			if other < 20 || other > 300 {
				continue
			}
			var f record.Fields
			f.Apply(&record.Patch{Values: record.Fields{HeartRateBpm: p(bpm), RiskRestingHeartRate: p(other)}})
			got, _ := score.HeartRate(f)
			want := bpm
			if abs(other-75) > abs(bpm-75) {
				want = other
			}
			if got == nil || *got != want {
				t.Fatalf("heartRateBpm %v with riskRestingHeartRate %v: scored %s, want %v", bpm, other, num(got), want)
			}
			pair, alone := normalAdult(), normalAdult()
			pair.HeartRate, alone.HeartRate = got, p(other)
			if cap, c := score.Cap(score.Compute(pair).Flags), score.Cap(score.Compute(alone).Flags); cap > c {
				t.Fatalf("%v and %v: the pair is capped at %v, %v alone at %v", bpm, other, cap, other, c)
			}
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestKnowingLessNeverScoresBest: over random complete adult records with
// the metabolism inputs or the smoking status taken away, the verdict is
// never above PartialCap (Good) and says so (Partial, CaveatPartial); so
// the five vitals alone never outrank the fully characterised worked
// example, as they did (100 / 850 against 99 / 845).
func TestKnowingLessNeverScoresBest(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 9))
	for i := range 20000 {
		in := randomInputs(rng)
		in.Age = p(float64(18 + rng.IntN(80)))
		for _, v := range []**float64{&in.Systolic, &in.Diastolic, &in.HeartRate, &in.BreathingRate, &in.SpO2} {
			if *v == nil {
				*v = p(100)
			}
		}
		if i%2 == 0 {
			in.BMI, in.TotalChol, in.HDL, in.LDL, in.Triglycerides, in.MetSComponents, in.Diabetic = nil, nil, nil, nil, nil, nil, nil
		} else {
			in.Smoker = nil
		}
		r := score.Compute(in)
		if *r.Overall > score.PartialCap || *r.HealthCredit > 735 {
			t.Fatalf("without the risk picture: overall %v, credit %v", *r.Overall, *r.HealthCredit)
		}
		if cs := score.CaveatsOf(r); r.Partial != (cs[len(cs)-1] == score.CaveatPartial) {
			t.Fatalf("partial %v, caveats %v", r.Partial, cs)
		}
	}
	vitals := normalAdult()
	vitals.HRV, vitals.BMI, vitals.TotalChol, vitals.HDL, vitals.LDL, vitals.Triglycerides = nil, nil, nil, nil, nil, nil
	vitals.MetSComponents, vitals.TenYearCVD, vitals.Smoker, vitals.Diabetic, vitals.Hypertension = nil, nil, nil, nil, nil
	if v, full := score.Compute(vitals), score.Compute(normalAdult()); *v.Overall >= *full.Overall || !v.Partial || full.Partial {
		t.Errorf("vitals only %v (partial %v), the worked example %v (partial %v)", *v.Overall, v.Partial, *full.Overall, full.Partial)
	}
}
