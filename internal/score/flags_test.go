package score_test

import (
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/score"
)

func flagIDs(fs []score.Flag) []string {
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}

// TestRedFlagThresholds checks every rule just inside, on and just outside
// its threshold, on whole readings (x.5 rounds up), for an adult whose
// other readings are normal.
func TestRedFlagThresholds(t *testing.T) {
	t.Parallel()
	sys := func(v float64) func(*score.Inputs) { return func(in *score.Inputs) { in.Systolic = p(v) } }
	dia := func(v float64) func(*score.Inputs) { return func(in *score.Inputs) { in.Diastolic = p(v) } }
	hr := func(v float64) func(*score.Inputs) { return func(in *score.Inputs) { in.HeartRate = p(v) } }
	rr := func(v float64) func(*score.Inputs) { return func(in *score.Inputs) { in.BreathingRate = p(v) } }
	spo2 := func(v float64) func(*score.Inputs) { return func(in *score.Inputs) { in.SpO2 = p(v) } }
	irregular := func(v float64) func(*score.Inputs) {
		return func(in *score.Inputs) { in.IrregularHeartBeats, in.HeartRate = b(true), p(v) }
	}
	tests := []struct {
		flag   score.Flag
		set    func(*score.Inputs)
		raised bool
	}{
		{score.FlagSpO2Below90, spo2(91), false},
		{score.FlagSpO2Below90, spo2(90), false},
		{score.FlagSpO2Below90, spo2(89.5), false}, // a whole 90
		{score.FlagSpO2Below90, spo2(89.4), true},
		{score.FlagSpO2Below90, spo2(89), true},

		{score.FlagBPAbove180Over120, sys(179), false},
		{score.FlagBPAbove180Over120, sys(180), false},
		{score.FlagBPAbove180Over120, sys(180.4), false},
		{score.FlagBPAbove180Over120, sys(180.5), true},
		{score.FlagBPAbove180Over120, sys(181), true},
		{score.FlagBPAbove180Over120, dia(119), false},
		{score.FlagBPAbove180Over120, dia(120), false},
		{score.FlagBPAbove180Over120, dia(121), true},

		{score.FlagBPBelow90Over60, sys(91), false},
		{score.FlagBPBelow90Over60, sys(90), false},
		{score.FlagBPBelow90Over60, sys(89), true},
		{score.FlagBPBelow90Over60, dia(61), false},
		{score.FlagBPBelow90Over60, dia(60), false},
		{score.FlagBPBelow90Over60, dia(59), true},

		{score.FlagIrregularAbnormal, irregular(51), false},
		{score.FlagIrregularAbnormal, irregular(50), false},
		{score.FlagIrregularAbnormal, irregular(49), true},
		{score.FlagIrregularAbnormal, irregular(99), false},
		{score.FlagIrregularAbnormal, irregular(100), false},
		{score.FlagIrregularAbnormal, irregular(101), true},
		{score.FlagIrregularAbnormal, hr(101), false}, // a fast regular rate alone is no flag

		{score.FlagHeartRateBelow40, hr(41), false},
		{score.FlagHeartRateBelow40, hr(40), false},
		{score.FlagHeartRateBelow40, hr(39), true},
		{score.FlagHeartRateBelow40, hr(39.5), false}, // a whole 40
		{score.FlagHeartRateAbove130, hr(129), false},
		{score.FlagHeartRateAbove130, hr(130), false},
		{score.FlagHeartRateAbove130, hr(131), true},
		{score.FlagHeartRateAbove130, hr(130.5), true}, // a whole 131

		{score.FlagNEWS2Respiration, rr(9), false},
		{score.FlagNEWS2Respiration, rr(8), true},
		{score.FlagNEWS2Respiration, rr(7), true},
		{score.FlagNEWS2Respiration, rr(24), false},
		{score.FlagNEWS2Respiration, rr(25), true},
		{score.FlagNEWS2Respiration, rr(26), true},
		{score.FlagNEWS2SpO2, spo2(92), false},
		{score.FlagNEWS2SpO2, spo2(91), true},
		{score.FlagNEWS2SpO2, spo2(93), false},
		{score.FlagNEWS2SpO2, spo2(90), true},
		{score.FlagNEWS2Systolic, sys(92), false},
		{score.FlagNEWS2Systolic, sys(91), false},
		{score.FlagNEWS2Systolic, sys(90), true},
		{score.FlagNEWS2Systolic, sys(89), true},
		{score.FlagNEWS2Systolic, sys(218), false},
		{score.FlagNEWS2Systolic, sys(219), false},
		{score.FlagNEWS2Systolic, sys(220), true},
		{score.FlagNEWS2Systolic, sys(221), true},
		{score.FlagNEWS2Pulse, hr(42), false},
		{score.FlagNEWS2Pulse, hr(41), false},
		{score.FlagNEWS2Pulse, hr(40), true},
		{score.FlagNEWS2Pulse, hr(39), true},
		{score.FlagNEWS2Pulse, hr(129), false},
		{score.FlagNEWS2Pulse, hr(130), false},
		{score.FlagNEWS2Pulse, hr(131), true},
		{score.FlagNEWS2Pulse, hr(132), true},

		// NEWS2 totals: breathing 22 (2) + SpO2 93 (2) + systolic 110 or 111 (1 or 0).
		{score.FlagNEWS2TotalAtLeast5, func(in *score.Inputs) { in.BreathingRate, in.SpO2, in.Systolic = p(22), p(93), p(111) }, false},
		{score.FlagNEWS2TotalAtLeast5, func(in *score.Inputs) { in.BreathingRate, in.SpO2, in.Systolic = p(22), p(93), p(110) }, true},
		{score.FlagNEWS2TotalAtLeast5, func(in *score.Inputs) { in.BreathingRate, in.HeartRate, in.SpO2 = p(22), p(111), p(94) }, true},
		{score.FlagNEWS2TotalAtLeast5, func(in *score.Inputs) { in.BreathingRate, in.SpO2, in.Systolic = p(22), p(93), p(100) }, true},  // 6
		{score.FlagNEWS2TotalAtLeast5, func(in *score.Inputs) { in.BreathingRate, in.SpO2, in.Systolic = p(22), p(95), p(110) }, false}, // 4
	}
	for _, tt := range tests {
		in := normalAdult()
		tt.set(&in)
		got := score.RedFlags(in)
		if raised := slices.Contains(flagIDs(got), tt.flag.ID); raised != tt.raised {
			t.Errorf("%s: raised = %v, want %v (flags %v, inputs %s/%s hr %s rr %s spo2 %s)", tt.flag.ID, raised, tt.raised,
				flagIDs(got), num(in.Systolic), num(in.Diastolic), num(in.HeartRate), num(in.BreathingRate), num(in.SpO2))
		}
	}
}

// TestRedFlagAges checks the ages each rule applies from: SpO2 below 90 and
// blood pressure above 180/120 at every age, unknown included; NEWS2 from
// 16; the adult ranges from 18.
func TestRedFlagAges(t *testing.T) {
	t.Parallel()
	trigger := map[string]func(*score.Inputs){
		score.FlagSpO2Below90.ID:        func(in *score.Inputs) { in.SpO2 = p(85) },
		score.FlagBPAbove180Over120.ID:  func(in *score.Inputs) { in.Systolic = p(200) },
		score.FlagBPBelow90Over60.ID:    func(in *score.Inputs) { in.Diastolic = p(50) },
		score.FlagIrregularAbnormal.ID:  func(in *score.Inputs) { in.HeartRate, in.IrregularHeartBeats = p(105), b(true) },
		score.FlagHeartRateBelow40.ID:   func(in *score.Inputs) { in.HeartRate = p(35) },
		score.FlagHeartRateAbove130.ID:  func(in *score.Inputs) { in.HeartRate = p(135) },
		score.FlagNEWS2Respiration.ID:   func(in *score.Inputs) { in.BreathingRate = p(30) },
		score.FlagNEWS2SpO2.ID:          func(in *score.Inputs) { in.SpO2 = p(91) },
		score.FlagNEWS2Systolic.ID:      func(in *score.Inputs) { in.Systolic = p(90) },
		score.FlagNEWS2Pulse.ID:         func(in *score.Inputs) { in.HeartRate = p(40) },
		score.FlagNEWS2TotalAtLeast5.ID: func(in *score.Inputs) { in.BreathingRate, in.SpO2, in.Systolic = p(22), p(93), p(110) },
	}
	from := map[string]float64{ // -1: every age, unknown included
		score.FlagSpO2Below90.ID: -1, score.FlagBPAbove180Over120.ID: -1,
		score.FlagBPBelow90Over60.ID: 18, score.FlagIrregularAbnormal.ID: 18, score.FlagHeartRateBelow40.ID: 18, score.FlagHeartRateAbove130.ID: 18,
		score.FlagNEWS2Respiration.ID: 16, score.FlagNEWS2SpO2.ID: 16, score.FlagNEWS2Systolic.ID: 16, score.FlagNEWS2Pulse.ID: 16,
		score.FlagNEWS2TotalAtLeast5.ID: 16,
	}
	for id, set := range trigger {
		for _, age := range []*float64{nil, p(6), p(15), p(15.9), p(16), p(17), p(17.9), p(18), p(80)} {
			in := normalAdult()
			in.Age = age
			set(&in)
			want := from[id] < 0 || (age != nil && *age >= from[id])
			if got := slices.Contains(flagIDs(score.RedFlags(in)), id); got != want {
				t.Errorf("%s at age %s: raised = %v, want %v", id, num(age), got, want)
			}
		}
	}
}

// TestRedFlagsDominate checks that every flag caps the overall and credit
// scores below any good band, and that the categories name it.
func TestRedFlagsDominate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name        string
		set         func(*score.Inputs)
		first       score.Flag
		measurement func(score.Result) *string
	}{
		{"200/125", func(in *score.Inputs) { in.Systolic, in.Diastolic = p(200), p(125) }, score.FlagBPAbove180Over120,
			func(r score.Result) *string { return r.BloodPressureCategory }},
		{"70/40", func(in *score.Inputs) { in.Systolic, in.Diastolic = p(70), p(40) }, score.FlagBPBelow90Over60,
			func(r score.Result) *string { return r.BloodPressureCategory }},
		{"breathing 30, SpO2 85, heart rate 125", func(in *score.Inputs) { in.BreathingRate, in.SpO2, in.HeartRate = p(30), p(85), p(125) },
			score.FlagSpO2Below90, func(r score.Result) *string { return r.OxygenSaturationCategory }},
		{"irregular at 140", func(in *score.Inputs) { in.IrregularHeartBeats, in.HeartRate = b(true), p(140) }, score.FlagIrregularAbnormal,
			func(r score.Result) *string { return r.HeartRateCategory }},
		{"heart rate 35", func(in *score.Inputs) { in.HeartRate = p(35) }, score.FlagHeartRateBelow40,
			func(r score.Result) *string { return r.HeartRateCategory }},
		{"breathing 8", func(in *score.Inputs) { in.BreathingRate = p(8) }, score.FlagNEWS2Respiration,
			func(r score.Result) *string { return r.BreathingRateCategory }},
		{"SpO2 91", func(in *score.Inputs) { in.SpO2 = p(91) }, score.FlagNEWS2SpO2,
			func(r score.Result) *string { return r.OxygenSaturationCategory }},
		{"systolic 90", func(in *score.Inputs) { in.Systolic = p(90) }, score.FlagNEWS2Systolic,
			func(r score.Result) *string { return r.BloodPressureCategory }},
		{"NEWS2 total 5", func(in *score.Inputs) { in.BreathingRate, in.SpO2, in.Systolic = p(22), p(93), p(110) }, score.FlagNEWS2TotalAtLeast5,
			func(score.Result) *string { return nil }},
	} {
		in := normalAdult()
		tt.set(&in)
		r := score.Compute(in)
		if len(r.Flags) == 0 || r.Flags[0].ID != tt.first.ID {
			t.Errorf("%s: flags %v, want %s first", tt.name, flagIDs(r.Flags), tt.first.ID)
			continue
		}
		if r.Overall == nil || *r.Overall > score.FlagCap || r.HealthCredit == nil || *r.HealthCredit > 515 {
			t.Errorf("%s: overall %s, credit %s: not capped", tt.name, num(r.Overall), num(r.HealthCredit))
		}
		if str(r.OverallHealthCategory) != tt.first.Label || str(r.HealthCreditCategory) != tt.first.Label {
			t.Errorf("%s: categories %q, %q, want %q", tt.name, str(r.OverallHealthCategory), str(r.HealthCreditCategory), tt.first.Label)
		}
		if c := tt.measurement(r); tt.first.Measurement != score.Combined && str(c) != tt.first.Label {
			t.Errorf("%s: measurement category %q, want %q", tt.name, str(c), tt.first.Label)
		}
	}
}

// TestChildrenAndUnknownAgeGetRedFlagsOnly: no scores and no categories
// under 18 or without an age, only the flags that apply at that age.
func TestChildrenAndUnknownAgeGetRedFlagsOnly(t *testing.T) {
	t.Parallel()
	for _, age := range []*float64{nil, p(6), p(15), p(17), p(17.99)} {
		in := normalAdult()
		in.Age = age
		r := score.Compute(in)
		for name, v := range scores(r) {
			if v != nil {
				t.Errorf("age %s: %s = %v, want null", num(age), name, *v)
			}
		}
		for i, c := range categories(r) {
			if c != nil {
				t.Errorf("age %s: category %d = %q, want null", num(age), i, *c)
			}
		}
		if r.HealthCredit != nil {
			t.Errorf("age %s: health credit %v", num(age), *r.HealthCredit)
		}
	}
	child := normalAdult()
	child.Age, child.SpO2, child.BreathingRate = p(6), p(85), p(30)
	r := score.Compute(child)
	if str(r.OxygenSaturationCategory) != score.FlagSpO2Below90.Label || str(r.OverallHealthCategory) != score.FlagSpO2Below90.Label ||
		r.BreathingRateCategory != nil || r.Overall != nil {
		t.Errorf("6-year-old with SpO2 85 and breathing 30: oxygen %q, overall %q, breathing %q, score %s",
			str(r.OxygenSaturationCategory), str(r.OverallHealthCategory), str(r.BreathingRateCategory), num(r.Overall))
	}
	teen := normalAdult()
	teen.Age, teen.BreathingRate = p(16), p(30)
	if r := score.Compute(teen); str(r.BreathingRateCategory) != score.FlagNEWS2Respiration.Label || r.Overall != nil {
		t.Errorf("16-year-old breathing 30: %q, overall %s", str(r.BreathingRateCategory), num(r.Overall))
	}
}

func categories(r score.Result) []*string {
	return []*string{r.BloodPressureCategory, r.HeartRateCategory, r.HeartRateVariabilityCategory, r.BreathingRateCategory,
		r.OxygenSaturationCategory, r.ActivityCategory, r.SleepCategory, r.EquilibriumCategory, r.MetabolismCategory,
		r.OverallHealthCategory, r.RelaxationCategory, r.HealthCreditCategory, r.StressIndex}
}

// TestAgeBandsOfComponents: BMI and lipids for every adult (18 or over),
// the 10-year risk from 40 to 75.
func TestAgeBandsOfComponents(t *testing.T) {
	t.Parallel()
	metabolism := func(age float64) *float64 {
		in := normalAdult()
		in.Age, in.BMI, in.HDL = p(age), p(22), p(30) // HDL 0.3: visible when used
		return score.Compute(in).Metabolism
	}
	for _, age := range []float64{18, 19, 20, 45} {
		if m := metabolism(age); m == nil || *m >= 100 {
			t.Errorf("metabolism at %v = %s, want lipids used", age, num(m))
		}
	}
	overall := func(age float64) float64 {
		in := normalAdult()
		in.Age, in.TenYearCVD = p(age), p(6) // borderline: a component of 0.75, no finding
		return *score.Compute(in).Overall
	}
	for age, used := range map[float64]bool{39: false, 40: true, 75: true, 76: false} {
		if got := overall(age) < overall(30); got != used {
			t.Errorf("10-year risk at %v used = %v, want %v", age, got, used)
		}
	}
}
