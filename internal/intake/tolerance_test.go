package intake_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
)

// TestOneBodyAgreesWithinTheTolerancesOrIsRefused is the one-body half of
// "one quantity, one value" as a property: over random pairs of fields
// that give one quantity, a body is accepted exactly when the pair agrees
// within the documented tolerance (docs/api.md), and otherwise refused
// with Invalid naming both fields and nothing else.
func TestOneBodyAgreesWithinTheTolerancesOrIsRefused(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 11))
	// Values on a grid of 0.5, so that the cases on a tolerance's edge come up.
	draw := func(lo, hi float64) float64 { return lo + math.Round(rng.Float64()*(hi-lo)*2)/2 }
	pairs := []struct {
		a, b  string
		dt    record.DataType
		value func() (a, b float64, agree bool)
	}{
		{"heartRateBpm", "riskRestingHeartRate", record.Sensitive, func() (float64, float64, bool) {
			x, y := draw(20, 300), draw(20, 300)
			if rng.IntN(2) == 0 {
				y = math.Min(300, math.Max(20, x+draw(-8, 8)))
			}
			return x, y, math.Abs(x-y) <= 5
		}},
		{"heartRateBpm", "ibi", record.Sensitive, func() (float64, float64, bool) {
			ibi := float64(200 + rng.IntN(2801))
			rate := math.Round(600000/ibi) / 10
			x := math.Min(300, math.Max(20, rate+draw(-8, 8)))
			return x, ibi, math.Abs(x-rate) <= 5
		}},
		{"weightKg", "weightLb", record.Sensitive, func() (float64, float64, bool) {
			kg := draw(40, 150)
			lb := math.Round((kg/0.45359237+draw(-4, 4))*10) / 10
			return kg, lb, math.Abs(lb*0.45359237-kg) <= 1
		}},
	}
	for _, p := range pairs {
		for range 2000 {
			a, b, agree := p.value()
			body := fmt.Sprintf(`{%s,%q:%v,%q:%v}`, base, p.a, a, p.b, b)
			_, ierr := decode(t, body, p.dt)
			switch {
			case agree && ierr != nil:
				t.Fatalf("%s refused: %v", body, ierr)
			case !agree && (ierr == nil || ierr.Code != intake.Invalid || !slices.Equal(ierr.Fields, sorted(p.a, p.b))):
				t.Fatalf("%s: %v, want Invalid naming %s and %s", body, ierr, p.a, p.b)
			}
		}
	}
}

// TestAgeAndBirthDateAgreeWithinAYearOrAreRefused: the same property for
// age and dateOfBirth, whose agreement depends on today.
func TestAgeAndBirthDateAgreeWithinAYearOrAreRefused(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 12))
	for range 3000 {
		born := today.AddDate(-rng.IntN(100), 0, -rng.IntN(366))
		years := today.Year() - born.Year()
		if today.Month() < born.Month() || today.Month() == born.Month() && today.Day() < born.Day() {
			years--
		}
		age := max(0, years+rng.IntN(7)-3)
		body := fmt.Sprintf(`{%s,"age":%d,"dateOfBirth":%q}`, base, age, born.Format("2006-01-02"))
		_, ierr := decode(t, body, record.NonSensitive)
		agree := age-years <= 1 && years-age <= 1
		switch {
		case agree && ierr != nil:
			t.Fatalf("%s refused: %v", body, ierr)
		case !agree && (ierr == nil || !slices.Equal(ierr.Fields, []string{"age", "dateOfBirth"})):
			t.Fatalf("%s: %v, want Invalid naming age and dateOfBirth", body, ierr)
		}
	}
}

func sorted(s ...string) []string { slices.Sort(s); return s }
