package score_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pads-dev/pads/internal/score"
)

func p(v float64) *float64 { return &v }
func b(v bool) *bool       { return &v }

func str(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestBloodPressureCategoryBoundaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sys, dia float64
		want     string
	}{
		{119, 79, "Normal"},
		{120, 79, "Elevated"},
		{129, 79, "Elevated"},
		{129.4, 79.4, "Elevated"}, // whole readings: rounds to 129/79
		{129.5, 79, "Hypertension Stage 1"},
		{130, 79, "Hypertension Stage 1"},
		{119, 80, "Hypertension Stage 1"},
		{139, 89, "Hypertension Stage 1"},
		{140, 89, "Hypertension Stage 2"},
		{139, 90, "Hypertension Stage 2"},
		{110, 95, "Hypertension Stage 2"}, // disagreement: the higher wins
		{180, 120, "Hypertension Stage 2"},
		{181, 80, "Hypertensive Crisis"},
		{150, 121, "Hypertensive Crisis"},
		{85, 55, "Normal"}, // low is not a hypertension category
	}
	for _, tt := range tests {
		if got := str(score.BloodPressureCategory(&tt.sys, &tt.dia)); got != tt.want {
			t.Errorf("%v/%v: %s, want %s", tt.sys, tt.dia, got, tt.want)
		}
	}
	if score.BloodPressureCategory(p(120), nil) != nil {
		t.Error("one reading alone has no category")
	}
}

func TestVitalSignCategoryBoundaries(t *testing.T) {
	t.Parallel()
	type row struct {
		v    float64
		want string
	}
	check := func(name string, f func(*float64) *string, rows []row) {
		for _, r := range rows {
			if got := str(f(&r.v)); got != r.want {
				t.Errorf("%s(%v) = %s, want %s", name, r.v, got, r.want)
			}
		}
		if f(nil) != nil {
			t.Errorf("%s(nil) must be nil", name)
		}
	}
	check("heart rate", score.HeartRateCategory, []row{{59, "Low"}, {59.4, "Low"}, {60, "Normal"}, {100, "Normal"}, {101, "High"}})
	check("breathing", score.BreathingRateCategory, []row{{8, "Very Low"}, {9, "Low"}, {11, "Low"}, {12, "Normal"}, {20, "Normal"}, {21, "High"}, {24, "High"}, {25, "Very High"}})
	check("oxygen", score.OxygenSaturationCategory, []row{{100, "Normal"}, {95, "Normal"}, {94, "Below Normal"}, {90, "Below Normal"}, {89, "Low"}})
	check("score", score.ScoreCategory, []row{{100, "Excellent"}, {80, "Excellent"}, {79, "Good"}, {60, "Good"}, {59, "Fair"}, {40, "Fair"}, {39, "Poor"}, {0, "Poor"}})
	check("credit", score.HealthCreditCategory, []row{{850, "Excellent"}, {800, "Excellent"}, {799, "Very Good"}, {740, "Very Good"}, {739, "Good"}, {670, "Good"}, {669, "Fair"}, {580, "Fair"}, {579, "Poor"}, {300, "Poor"}})
	check("stress", score.StressIndex, []row{{100, "Low"}, {80, "Low"}, {79, "Mild"}, {60, "Mild"}, {59, "Moderate"}, {40, "Moderate"}, {39, "High"}, {20, "High"}, {19, "Very High"}})
	hrv := func(sdnn, rmssd *float64) string { return str(score.HeartRateVariabilityCategory(sdnn, rmssd)) }
	for _, tt := range []struct {
		sdnn, rmssd *float64
		want        string
	}{
		{p(31.9), nil, "Low"}, {p(32), nil, "Normal"}, {p(93), nil, "Normal"}, {p(93.1), nil, "High"},
		{nil, p(18.9), "Low"}, {nil, p(19), "Normal"}, {nil, p(75), "Normal"}, {nil, p(76), "High"},
		{p(50), p(10), "Normal"}, // SDNN decides when both are known
		{nil, nil, "<nil>"},
	} {
		if got := hrv(tt.sdnn, tt.rmssd); got != tt.want {
			t.Errorf("HRV(%v, %v) = %s, want %s", tt.sdnn, tt.rmssd, got, tt.want)
		}
	}
}

// normalAdult is worked through by hand in docs/scoring.md.
func normalAdult() score.Inputs {
	return score.Inputs{
		Systolic: p(118), Diastolic: p(76), HeartRate: p(62), SDNN: p(55), RMSSD: p(45),
		BreathingRate: p(14), SpO2: p(98), BMI: p(22.5),
		TotalChol: p(180), HDL: p(55), LDL: p(95), Triglycerides: p(120), MetSComponents: p(0), TenYearCVD: p(3),
		Smoker: b(false), Diabetic: b(false),
	}
}

func TestHandComputedNormalAdult(t *testing.T) {
	t.Parallel()
	r := score.Compute(normalAdult())
	want := map[string]float64{
		"metabolism":  97,  // (2*1 + 1 + 1 + 0.7 + 1 + 2*1 + 1) / 9 = 0.9667
		"equilibrium": 100, // NEWS2 0 points on all four
		"relaxation":  99,  // (2*1 + 0.97) / 3, HR 62 -> 1 - 0.6*2/40 = 0.97
		"activity":    99,  // (2*0.97 + 1 + 1) / 4 = 0.985
		"sleep":       99,  // (1 + 0.97 + 1) / 3
		"overall":     99,  // (25*1 + 20*.97 + 20*1 + 15*.99 + 10*.99 + 10*.99) / 100 = 0.9905
		"credit":      845, // 300 + 550 * 99/100 = 844.5
	}
	got := map[string]*float64{"metabolism": r.Metabolism, "equilibrium": r.Equilibrium, "relaxation": r.Relaxation,
		"activity": r.Activity, "sleep": r.Sleep, "overall": r.Overall, "credit": r.HealthCredit}
	for k, w := range want {
		if got[k] == nil || *got[k] != w {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	if str(r.StressIndex) != "Low" || str(r.HealthCreditCategory) != "Excellent" || str(r.OverallHealthCategory) != "Excellent" {
		t.Errorf("labels: %s %s %s", str(r.StressIndex), str(r.HealthCreditCategory), str(r.OverallHealthCategory))
	}
}

func TestTooLittleKnownGivesNull(t *testing.T) {
	t.Parallel()
	r := score.Compute(score.Inputs{Systolic: p(118)})
	for name, v := range map[string]*float64{"activity": r.Activity, "sleep": r.Sleep, "equilibrium": r.Equilibrium,
		"metabolism": r.Metabolism, "overall": r.Overall, "relaxation": r.Relaxation, "credit": r.HealthCredit} {
		if v != nil {
			t.Errorf("%s = %v from systolic alone, want null", name, *v)
		}
	}
	if r := score.Compute(score.Inputs{}); r.StressIndex != nil || r.BloodPressureCategory != nil {
		t.Error("nothing known must give nulls")
	}
}

func scores(r score.Result) map[string]*float64 {
	return map[string]*float64{"activity": r.Activity, "sleep": r.Sleep, "equilibrium": r.Equilibrium,
		"metabolism": r.Metabolism, "overall": r.Overall, "relaxation": r.Relaxation}
}

func TestScoresStayWithinTheirRange(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	maybe := func(lo, hi float64) *float64 {
		if rng.IntN(4) == 0 {
			return nil
		}
		return p(lo + rng.Float64()*(hi-lo))
	}
	maybeB := func() *bool {
		if rng.IntN(3) == 0 {
			return nil
		}
		return b(rng.IntN(2) == 0)
	}
	for range 20000 { // the intake ranges, so every value pads can store
		in := score.Inputs{Systolic: maybe(40, 300), Diastolic: maybe(20, 200), HeartRate: maybe(20, 300),
			SDNN: maybe(0, 1000), RMSSD: maybe(0, 1000), BreathingRate: maybe(2, 80), SpO2: maybe(50, 100),
			BMI: maybe(5, 150), TotalChol: maybe(0, 1000), HDL: maybe(0, 300), LDL: maybe(0, 1000),
			Triglycerides: maybe(0, 5000), MetSComponents: maybe(0, 100), TenYearCVD: maybe(0, 100),
			Smoker: maybeB(), Diabetic: maybeB()}
		r := score.Compute(in)
		for name, v := range scores(r) {
			if v != nil && (*v < 0 || *v > score.Max) {
				t.Fatalf("%s = %v for %+v", name, *v, in)
			}
		}
		if c := r.HealthCredit; c != nil && (*c < score.CreditMin || *c > score.CreditMax) {
			t.Fatalf("credit = %v", *c)
		}
	}
}

// TestWorseningAVitalNeverImprovesAScore moves each input step by step away
// from its healthy range and checks that no score goes up.
func TestWorseningAVitalNeverImprovesAScore(t *testing.T) {
	t.Parallel()
	type walk struct {
		name     string
		from, to float64
		set      func(*score.Inputs, float64)
	}
	walks := []walk{
		{"systolic up", 115, 300, func(in *score.Inputs, v float64) { in.Systolic = &v }},
		{"systolic down", 115, 40, func(in *score.Inputs, v float64) { in.Systolic = &v }},
		{"diastolic up", 70, 200, func(in *score.Inputs, v float64) { in.Diastolic = &v }},
		{"diastolic down", 70, 20, func(in *score.Inputs, v float64) { in.Diastolic = &v }},
		{"heart rate up", 55, 300, func(in *score.Inputs, v float64) { in.HeartRate = &v }},
		{"heart rate down", 55, 20, func(in *score.Inputs, v float64) { in.HeartRate = &v }},
		{"SDNN down", 120, 0, func(in *score.Inputs, v float64) { in.SDNN, in.RMSSD = &v, nil }},
		{"RMSSD down", 120, 0, func(in *score.Inputs, v float64) { in.RMSSD = &v }},
		{"breathing up", 16, 80, func(in *score.Inputs, v float64) { in.BreathingRate = &v }},
		{"breathing down", 16, 2, func(in *score.Inputs, v float64) { in.BreathingRate = &v }},
		{"SpO2 down", 100, 50, func(in *score.Inputs, v float64) { in.SpO2 = &v }},
		{"BMI up", 22, 150, func(in *score.Inputs, v float64) { in.BMI = &v }},
		{"BMI down", 22, 5, func(in *score.Inputs, v float64) { in.BMI = &v }},
		{"total cholesterol up", 150, 1000, func(in *score.Inputs, v float64) { in.TotalChol = &v }},
		{"LDL up", 80, 1000, func(in *score.Inputs, v float64) { in.LDL = &v }},
		{"HDL down", 80, 0, func(in *score.Inputs, v float64) { in.HDL = &v }},
		{"triglycerides up", 100, 5000, func(in *score.Inputs, v float64) { in.Triglycerides = &v }},
		{"metabolic syndrome up", 0, 100, func(in *score.Inputs, v float64) { in.MetSComponents = &v }},
		{"10-year CVD risk up", 0, 100, func(in *score.Inputs, v float64) { in.TenYearCVD = &v }},
		{"smoker", 0, 1, func(in *score.Inputs, v float64) { in.Smoker = b(v >= 1) }},
		{"diabetic", 0, 1, func(in *score.Inputs, v float64) { in.Diabetic = b(v >= 1) }},
	}
	for _, w := range walks {
		in := normalAdult()
		w.set(&in, w.from)
		prev := scores(score.Compute(in))
		prevCredit := score.Compute(in).HealthCredit
		const steps = 400
		for i := 1; i <= steps; i++ {
			w.set(&in, w.from+(w.to-w.from)*float64(i)/steps)
			r := score.Compute(in)
			for name, v := range scores(r) {
				if v != nil && prev[name] != nil && *v > *prev[name] {
					t.Fatalf("%s: %s rose from %v to %v", w.name, name, *prev[name], *v)
				}
			}
			if *r.HealthCredit > *prevCredit {
				t.Fatalf("%s: health credit rose", w.name)
			}
			prev, prevCredit = scores(r), r.HealthCredit
		}
	}
}
