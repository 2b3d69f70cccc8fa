package score_test

import (
	"fmt"
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

func num(v *float64) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprint(*v)
}

// normalAdult is worked through by hand in docs/scoring.md.
func normalAdult() score.Inputs {
	return score.Inputs{
		Age: p(45), Systolic: p(118), Diastolic: p(76), HeartRate: p(62),
		HRV: p(55), HRVMeasure: score.SDNN, BreathingRate: p(14), SpO2: p(98), BMI: p(22.5),
		TotalChol: p(180), HDL: p(55), LDL: p(95), Triglycerides: p(120), MetSComponents: p(0), TenYearCVD: p(3),
		Smoker: b(false), Diabetic: b(false),
	}
}

func TestHandComputedNormalAdult(t *testing.T) {
	t.Parallel()
	r := score.Compute(normalAdult())
	want := map[string]float64{
		"metabolism":  97,  // (2*1 + 1 + 1 + 0.7 + 1 + 2*1 + 1) / 9 = 0.9667
		"equilibrium": 100, // every wellness component 1
		"relaxation":  100, // (2*1 + 1) / 3
		"activity":    100,
		"sleep":       100,
		"overall":     99,  // (25*1 + 20*.97 + 20 + 15 + 10 + 10) / 100 = 0.994
		"credit":      845, // 300 + 550 * 99/100 = 844.5
	}
	got := scores(r)
	got["credit"] = r.HealthCredit
	for k, w := range want {
		if got[k] == nil || *got[k] != w {
			t.Errorf("%s = %s, want %v", k, num(got[k]), w)
		}
	}
	for name, c := range map[string]struct {
		got  *string
		want string
	}{
		"stress":         {r.StressIndex, "Low"},
		"credit":         {r.HealthCreditCategory, "Exceptional"},
		"overall":        {r.OverallHealthCategory, "Excellent"},
		"blood pressure": {r.BloodPressureCategory, "Normal range"},
		"HRV":            {r.HeartRateVariabilityCategory, "Typical range"},
	} {
		if str(c.got) != c.want {
			t.Errorf("%s category = %s, want %s", name, str(c.got), c.want)
		}
	}
	if len(r.Flags) != 0 {
		t.Errorf("flags %v for a healthy adult", r.Flags)
	}
}

func TestTooLittleKnownGivesNull(t *testing.T) {
	t.Parallel()
	r := score.Compute(score.Inputs{Age: p(45), Systolic: p(118)})
	for name, v := range scores(r) {
		if v != nil {
			t.Errorf("%s = %v from systolic alone, want null", name, *v)
		}
	}
	if r.HealthCredit != nil || r.BloodPressureCategory != nil {
		t.Error("one reading alone has no credit and no blood pressure category")
	}
	if r := score.Compute(score.Inputs{Age: p(45)}); r.StressIndex != nil || r.OverallHealthCategory != nil {
		t.Error("nothing known must give nulls")
	}
}

func TestCategoryTables(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sys, dia float64
		want     string
	}{
		{119, 79, "Normal range"},
		{90, 60, "Normal range"},
		{120, 79, "Elevated reading"},
		{129, 79, "Elevated reading"},
		{130, 79, "High reading (stage 1 range)"},
		{119, 80, "High reading (stage 1 range)"},
		{139, 89, "High reading (stage 1 range)"},
		{140, 89, "High reading (stage 2 range)"},
		{139, 90, "High reading (stage 2 range)"},
		{110, 95, "High reading (stage 2 range)"}, // disagreement: the higher wins
		{180, 120, "High reading (stage 2 range)"},
	} {
		if got := score.BloodPressureCategory(tt.sys, tt.dia); got != tt.want {
			t.Errorf("BP %v/%v = %s, want %s", tt.sys, tt.dia, got, tt.want)
		}
	}
	type row struct {
		v    float64
		want string
	}
	check := func(name string, f func(float64) string, rows []row) {
		for _, r := range rows {
			if got := f(r.v); got != r.want {
				t.Errorf("%s(%v) = %s, want %s", name, r.v, got, r.want)
			}
		}
	}
	hr := func(v float64) string { return score.HeartRateCategory(v, false) }
	irregular := func(v float64) string { return score.HeartRateCategory(v, true) }
	check("heart rate", hr, []row{{49, "Low reading"}, {50, "Normal range"}, {100, "Normal range"}, {101, "High reading"}})
	check("irregular", irregular, []row{{50, "Normal range, irregular beats reported"}, {100, "Normal range, irregular beats reported"}})
	check("breathing", score.BreathingRateCategory, []row{{11, "Low reading"}, {12, "Normal range"}, {20, "Normal range"}, {21, "High reading"}})
	check("oxygen", score.OxygenSaturationCategory, []row{{100, "Normal range"}, {95, "Normal range"}, {94, "Below normal range"}})
	sdnn := func(v float64) string { return score.HeartRateVariabilityCategory(v, score.SDNN) }
	rmssd := func(v float64) string { return score.HeartRateVariabilityCategory(v, score.RMSSD) }
	check("SDNN", sdnn, []row{{31.9, "Below typical range"}, {32, "Typical range"}, {93, "Typical range"}, {93.1, "Above typical range"}})
	check("RMSSD", rmssd, []row{{18.9, "Below typical range"}, {19, "Typical range"}, {75, "Typical range"}, {75.1, "Above typical range"}})
	check("score", score.ScoreCategory, []row{{100, "Excellent"}, {80, "Excellent"}, {79, "Good"}, {60, "Good"}, {59, "Fair"}, {40, "Fair"}, {39, "Poor"}, {0, "Poor"}})
	check("credit", score.HealthCreditCategory, []row{{850, "Exceptional"}, {800, "Exceptional"}, {799, "Very Good"}, {740, "Very Good"}, {739, "Good"}, {670, "Good"}, {669, "Fair"}, {580, "Fair"}, {579, "Poor"}, {300, "Poor"}})
	check("stress", score.StressIndex, []row{{100, "Low"}, {80, "Low"}, {79, "Mild"}, {60, "Mild"}, {59, "Moderate"}, {40, "Moderate"}, {39, "High"}, {20, "High"}, {19, "Very High"}})
}

func scores(r score.Result) map[string]*float64 {
	return map[string]*float64{"activity": r.Activity, "sleep": r.Sleep, "equilibrium": r.Equilibrium,
		"metabolism": r.Metabolism, "overall": r.Overall, "relaxation": r.Relaxation}
}
