package score_test

import (
	"slices"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// TestOneQuantityOneValue: the field that last gave a quantity wins; with
// no marker (records stored before pads-score-3) fields that agree give
// the first of the source order, and fields that disagree give nothing.
func TestOneQuantityOneValue(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	hr := func(f record.Fields) (string, []string) {
		v, c := score.HeartRate(f)
		return num(v), c
	}
	for _, tt := range []struct {
		name      string
		f         record.Fields
		want      string
		conflicts []string
	}{
		{"heartRateBpm alone", record.Fields{HeartRateBpm: p(72)}, "72", nil},
		{"ibi alone", record.Fields{Ibi: p(400)}, "150", nil},
		{"ibi 100 is 600/min, out of bounds", record.Fields{Ibi: p(100)}, "<nil>", nil},
		{"agree within 5, no marker", record.Fields{HeartRateBpm: p(72), RiskRestingHeartRate: p(76)}, "72", nil},
		{"disagree, no marker", record.Fields{HeartRateBpm: p(72), RiskRestingHeartRate: p(150)}, "<nil>",
			[]string{"heartRateBpm", "riskRestingHeartRate"}},
		{"disagree with ibi, no marker", record.Fields{HeartRateBpm: p(72), Ibi: p(400)}, "<nil>", []string{"heartRateBpm", "ibi"}},
		{"riskRestingHeartRate last", record.Fields{HeartRateBpm: p(72), RiskRestingHeartRate: p(150),
			Latest: &record.Latest{HeartRate: "riskRestingHeartRate"}}, "150", nil},
		{"ibi last", record.Fields{HeartRateBpm: p(72), Ibi: p(400), Latest: &record.Latest{HeartRate: "ibi"}}, "150", nil},
		{"marked field cleared", record.Fields{RiskRestingHeartRate: p(150), Latest: &record.Latest{HeartRate: "heartRateBpm"}}, "150", nil},
	} {
		got, c := hr(tt.f)
		if got != tt.want || !slices.Equal(c, tt.conflicts) {
			t.Errorf("%s: heart rate %s %v, want %s %v", tt.name, got, c, tt.want, tt.conflicts)
		}
	}

	six := "2020-11-01"
	if a, bad := score.Age(record.Fields{Age: p(40), DateOfBirth: &six}, at); a != nil || !bad {
		t.Errorf("age 40 with a 6-year-old's date of birth, no marker: %s %v", num(a), bad)
	}
	if a, _ := score.Age(record.Fields{Age: p(40), DateOfBirth: &six, Latest: &record.Latest{Age: "dateOfBirth"}}, at); num(a) != "6" {
		t.Errorf("date of birth given last: age %s", num(a))
	}
	if a, bad := score.Age(record.Fields{Age: p(6), DateOfBirth: &six}, at); num(a) != "6" || bad {
		t.Errorf("agreeing: %s %v", num(a), bad)
	}

	kg, _ := score.Weight(record.Fields{WeightLb: p(150), WeightKg: p(90), Latest: &record.Latest{Weight: "weightKg"}})
	if num(kg) != "90" {
		t.Errorf("weightKg given after weightLb: %s kg", num(kg))
	}
	if kg, c := score.Weight(record.Fields{WeightLb: p(150), WeightKg: p(90)}); kg != nil || len(c) != 2 {
		t.Errorf("disagreeing weights with no marker: %s %v", num(kg), c)
	}
	if kg, _ := score.Weight(record.Fields{WeightKg: p(640)}); kg != nil {
		t.Errorf("640 kg is over 1400 lb: %s", num(kg))
	}

	for _, tt := range []struct {
		f      record.Fields
		smoker string
		shown  string
	}{
		{record.Fields{Smoker: b(false), SmokerRiskStatus: new("current smoker")}, "true", "Current smoker"},
		{record.Fields{Smoker: b(true), SmokerRiskStatus: new("never")}, "true", "Current smoker"},
		{record.Fields{Smoker: b(false), SmokerRiskStatus: new("current smoker"), Latest: &record.Latest{Smoker: "smokerRiskStatus"}}, "true", "Current smoker"},
		{record.Fields{Smoker: b(true), SmokerRiskStatus: new("current smoker"), Latest: &record.Latest{Smoker: "smoker"}}, "true", "Current smoker"},
		{record.Fields{SmokerRiskStatus: new("Former smoker")}, "false", "Former smoker"},
		{record.Fields{SmokerRiskStatus: new("Non-smoker")}, "false", "Non-smoker"},
		{record.Fields{SmokerRiskStatus: new("vapes")}, "<nil>", "Unknown"},
		{record.Fields{SmokerRiskStatus: new("non-daily smoker"), Smoker: b(true)}, "true", "Current smoker"},
		{record.Fields{Smoker: b(true)}, "true", "Current smoker"},
		{record.Fields{Smoker: b(false)}, "false", "Non-smoker"},
	} {
		s, shown := score.Smoking(tt.f)
		got := "<nil>"
		if s != nil {
			got = map[bool]string{true: "true", false: "false"}[*s]
		}
		if got != tt.smoker || str(shown) != tt.shown {
			t.Errorf("%+v: smoker %s shown %q, want %s %q", tt.f, got, str(shown), tt.smoker, tt.shown)
		}
	}
}

// TestSmokingStatusWords: the documented normalisation (docs/scoring.md,
// "Smoking"): anything that says current, daily, non-daily, occasional or
// some days is a current smoker, "still" overriding quit; former or quit
// is former; never is never; a negation of smoking is not smoking; any
// other text is unknown, shown as Unknown.
func TestSmokingStatusWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Ex-Smoker ": score.FormerSmoker, "  CURRENT__smoker": score.CurrentSmoker, "non smoker": score.NonSmoker,
		"Never": score.NeverSmoked, "never smoked": score.NeverSmoked, "Never-smoker": score.NeverSmoked,
		"yes": score.CurrentSmoker, "Y": score.CurrentSmoker, "no": score.NonSmoker, "quit 2019": score.FormerSmoker,
		"daily": score.CurrentSmoker, "vapes": score.UnknownStatus, "": score.UnknownStatus,
		"non-daily smoker": score.CurrentSmoker, "Non-daily": score.CurrentSmoker,
		"tried to quit, still current smoker": score.CurrentSmoker, "quit, still smokes": score.CurrentSmoker,
		"smokes some days": score.CurrentSmoker, "occasional smoker": score.CurrentSmoker,
		"Current some day smoker": score.CurrentSmoker, "cigar smoker": score.CurrentSmoker,
		"Former smoker, quit 2010": score.FormerSmoker, "not a current smoker": score.NonSmoker,
		"no longer smokes, quit 2015": score.FormerSmoker, "Non-smoker": score.NonSmoker,
		"I don’t smoke": score.NonSmoker, "never a smoker (not smoking)": score.NeverSmoked,
	} {
		if got := score.SmokingStatus(in); got != want {
			t.Errorf("SmokingStatus(%q) = %q, want %q", in, got, want)
		}
		var smoker *bool
		if v := score.SmokerOf(&in); v != nil {
			smoker = v
		}
		if (smoker == nil) != (want == score.UnknownStatus) || (smoker != nil && *smoker != (want == score.CurrentSmoker)) {
			t.Errorf("SmokerOf(%q) = %v, status %q", in, smoker, want)
		}
	}
}
