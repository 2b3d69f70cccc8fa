package score_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/score"
)

// TestNoVerdictWithoutTheRequiredVitals: each required vital missing in
// turn withholds every score and names the field; questionnaire answers
// and risk numbers alone never make a verdict.
func TestNoVerdictWithoutTheRequiredVitals(t *testing.T) {
	t.Parallel()
	drop := map[string]func(*score.Inputs){
		"systolicBloodPressureMmhg":  func(in *score.Inputs) { in.Systolic = nil },
		"diastolicBloodPressureMmhg": func(in *score.Inputs) { in.Diastolic = nil },
		"heartRateBpm":               func(in *score.Inputs) { in.HeartRate = nil },
		"breathingRateBpm":           func(in *score.Inputs) { in.BreathingRate = nil },
		"oxygen":                     func(in *score.Inputs) { in.SpO2 = nil },
	}
	for field, set := range drop {
		in := normalAdult()
		set(&in)
		r := score.Compute(in)
		for name, v := range scores(r) {
			if v != nil {
				t.Errorf("without %s: %s = %v", field, name, *v)
			}
		}
		if r.HealthCredit != nil || r.OverallHealthCategory != nil || r.HealthCreditCategory != nil || r.StressIndex != nil {
			t.Errorf("without %s: a verdict", field)
		}
		if r.Withheld == nil || r.Withheld.Reason != score.InsufficientMeasurements || !slices.Equal(r.Withheld.Fields, []string{field}) {
			t.Errorf("without %s: withheld %+v", field, r.Withheld)
		}
	}
	answers := score.Inputs{Age: p(45), Smoker: b(false), Diabetic: b(false), MetSComponents: p(0), TenYearCVD: p(1),
		BMI: p(22), TotalChol: p(150), HDL: p(70), LDL: p(80), Triglycerides: p(90), HRV: p(60), HRVMeasure: score.SDNN}
	r := score.Compute(answers)
	if r.Overall != nil || r.HealthCredit != nil || r.Metabolism != nil || r.Withheld == nil ||
		!slices.Equal(r.Withheld.Fields, score.RequiredVitals) {
		t.Errorf("answers only: overall %s credit %s metabolism %s withheld %+v", num(r.Overall), num(r.HealthCredit), num(r.Metabolism), r.Withheld)
	}
	if r := score.Compute(normalAdult()); r.Withheld != nil || r.Overall == nil {
		t.Errorf("the worked example withheld: %+v", r.Withheld)
	}
}

func TestWithheldReasons(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		set  func(*score.Inputs)
		want string
	}{
		{"age unknown", func(in *score.Inputs) { in.Age = nil }, score.AgeUnknown},
		{"age contradictory", func(in *score.Inputs) { in.Age, in.AgeContradictory = nil, true }, score.AgeContradictory},
		{"11 years old", func(in *score.Inputs) { in.Age = p(11) }, score.Under18},
		{"17 years old", func(in *score.Inputs) { in.Age = p(17) }, score.Under18},
		{"heart rates disagree", func(in *score.Inputs) {
			in.HeartRate, in.Conflicts = nil, []string{"heartRateBpm", "riskRestingHeartRate"}
		}, score.ContradictoryMeasurements},
		{"no SpO2", func(in *score.Inputs) { in.SpO2 = nil }, score.InsufficientMeasurements},
	} {
		in := normalAdult()
		tt.set(&in)
		r := score.Compute(in)
		if r.Withheld == nil || r.Withheld.Reason != tt.want || r.Withheld.Text() == "" {
			t.Errorf("%s: withheld %+v, want %s", tt.name, r.Withheld, tt.want)
		}
		if r.Overall != nil {
			t.Errorf("%s: overall %v", tt.name, *r.Overall)
		}
	}
}

// TestTheWorstFlagBoundsTheVerdict: over random complete adult records,
// the overall score never exceeds the cap of the most severe flag, and a
// moderate or severe flag never reads Excellent or Good overall, nor
// Exceptional, Very Good or Good for health credit; a mild one never
// reads Excellent or Exceptional.
func TestTheWorstFlagBoundsTheVerdict(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 7))
	seen := map[score.Severity]int{}
	for i := range 20000 {
		in := randomInputs(rng)
		if i%2 == 0 { // the worked example with one input drawn over its range
			in = normalAdult()
			d := dimensions[rng.IntN(len(dimensions))]
			*d.get(&in) = p(d.min + rng.Float64()*(d.max-d.min))
		}
		in.Age = p(float64(18 + rng.IntN(80)))
		for _, v := range []**float64{&in.Systolic, &in.Diastolic, &in.HeartRate, &in.BreathingRate, &in.SpO2} {
			if *v == nil {
				*v = p(100)
			}
		}
		r := score.Compute(in)
		if r.Overall == nil {
			t.Fatalf("no verdict for a complete adult record: %+v", r.Withheld)
		}
		worst := score.Severity(0)
		for _, f := range r.Flags {
			worst = max(worst, f.Severity)
		}
		seen[worst]++
		forbidden := map[score.Severity][]string{
			score.Mild:     {"Excellent", "Exceptional", "Very Good"},
			score.Moderate: {"Excellent", "Good", "Exceptional", "Very Good"},
			score.Severe:   {"Excellent", "Good", "Fair", "Exceptional", "Very Good"},
		}[worst]
		if slices.Contains(forbidden, str(r.OverallHealthCategory)) || slices.Contains(forbidden, str(r.HealthCreditCategory)) {
			t.Fatalf("worst flag %v (%v): overall %s %q, credit %s %q", worst, flagIDs(r.Flags), num(r.Overall),
				str(r.OverallHealthCategory), num(r.HealthCredit), str(r.HealthCreditCategory))
		}
		if worst > 0 && *r.Overall > worst.Cap() {
			t.Fatalf("overall %v above cap %v", *r.Overall, worst.Cap())
		}
	}
	for _, s := range []score.Severity{0, score.Mild, score.Moderate, score.Severe} {
		if seen[s] < 100 {
			t.Errorf("only %d records whose worst flag is %v: draw more", seen[s], s)
		}
	}
}

// TestFlagsCarryCodeSeverityAndGuideline: every flag the model can raise
// has a unique code, a severity, an HL7 interpretation code and a
// guideline; red flags and irregular rhythm send to a clinician.
func TestFlagsCarryCodeSeverityAndGuideline(t *testing.T) {
	t.Parallel()
	ids := map[string]bool{}
	for _, f := range score.AllFlags() {
		if ids[f.ID] || f.ID == "" || f.Label == "" || f.Guideline == "" || f.Severity.String() == "" {
			t.Errorf("flag %+v: duplicate or incomplete", f)
		}
		ids[f.ID] = true
		if !slices.Contains([]string{"H", "L", "HH", "LL", "A", "AA"}, f.Interpretation) {
			t.Errorf("%s: interpretation %q", f.ID, f.Interpretation)
		}
		if f.SeeClinician != (f.Severity == score.Severe || f.ID == "irregular-rhythm") {
			t.Errorf("%s: see a clinician %v", f.ID, f.SeeClinician)
		}
	}
	if len(ids) < 35 {
		t.Errorf("%d flags", len(ids))
	}
}
