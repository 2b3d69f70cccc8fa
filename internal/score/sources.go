package score

import (
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/pads-dev/pads/internal/record"
)

// How far two fields that give one quantity may disagree and still be
// read as one value: enough for rounding and for two estimates of one
// scan, not enough for a unit mix-up or a different person. The request
// decoder refuses a body whose fields disagree by more (400 Invalid
// field(s), naming both); across saves the field given last wins
// (record.Latest), and in records stored without that marker fields that
// disagree by more are left out.
const (
	HeartRateTolerance = 5.0 // beats/min, between heartRateBpm, riskRestingHeartRate and 60000/ibi
	AgeTolerance       = 1.0 // years, between age and the whole years since dateOfBirth
	WeightToleranceKg  = 1.0 // between weightKg and weightLb
	HeightToleranceIn  = 1.0 // between feet and inches and heightCm
	BMITolerance       = 1.0 // kg/m², between riskBmi and the BMI of the weight and height
)

// The API's bounds of the fields a derived value fills: a heart rate made
// from ibi must be one heartRateBpm accepts, an age made from dateOfBirth
// one age accepts.
const (
	MinHeartRate, MaxHeartRate = 20.0, 300.0
	MaxAge                     = 130.0
)

// A source is one field that gives a quantity, its value in the
// quantity's unit (nil when not given or unusable).
type source struct {
	name string
	v    *float64
}

// pick returns the value of the source latest names, when it has one.
// Otherwise (no marker, or the marked field cleared) it returns the first
// known source's value, provided every known source agrees with it within
// tol; when they disagree it returns nil and conflict. i is the index of
// the source used.
func pick(latest string, tol float64, sources ...source) (v *float64, i int, conflict bool) {
	for i, s := range sources {
		if latest != "" && s.name == latest && s.v != nil {
			return s.v, i, false
		}
	}
	i = -1
	for j, s := range sources {
		switch {
		case s.v == nil:
		case v == nil:
			v, i = s.v, j
		case math.Abs(*s.v-*v) > tol:
			return nil, -1, true
		}
	}
	return v, i, false
}

// choose is pick without the index.
func choose(latest string, tol float64, sources ...source) (*float64, bool) {
	v, _, conflict := pick(latest, tol, sources...)
	return v, conflict
}

func latestOf(f record.Fields) record.Latest {
	if f.Latest == nil {
		return record.Latest{}
	}
	return *f.Latest
}

// given lists the named fields that f gives.
func given(f record.Fields, names ...string) []string {
	var out []string
	for _, n := range names {
		if i, ok := record.FieldIndex(n); ok {
			if _, ok := f.Get(i); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// HeartRate is the record's resting heart rate from the field that last
// gave it: heartRateBpm, riskRestingHeartRate, or 60000 / ibi rounded to
// 0.1 bpm (left out outside heartRateBpm's bounds, 20-300). With no marker,
// the first of these known, provided the others agree within
// HeartRateTolerance; otherwise none, and the fields that disagree.
func HeartRate(f record.Fields) (bpm *float64, conflicts []string) {
	var fromIbi *float64
	if f.Ibi != nil && *f.Ibi > 0 {
		if v := math.Round(600000 / *f.Ibi) / 10; v >= MinHeartRate && v <= MaxHeartRate {
			fromIbi = &v
		}
	}
	bpm, conflict := choose(latestOf(f).HeartRate, HeartRateTolerance,
		source{"heartRateBpm", f.HeartRateBpm}, source{"riskRestingHeartRate", f.RiskRestingHeartRate}, source{"ibi", fromIbi})
	if conflict {
		return nil, given(f, "heartRateBpm", "riskRestingHeartRate", "ibi")
	}
	return bpm, nil
}

// Age is the record's age at time at from the field that last gave it:
// age, or the whole years since dateOfBirth (left out when negative or
// over 130, age's bounds). With no marker, age first, provided the two
// agree within AgeTolerance; contradictory reports that they do not.
func Age(f record.Fields, at time.Time) (years *float64, contradictory bool) {
	return choose(latestOf(f).Age, AgeTolerance, source{"age", f.Age}, source{"dateOfBirth", YearsSince(f.DateOfBirth, at)})
}

// YearsSince is the whole years from a YYYY-MM-DD date to at; nil when
// the date does not parse or the years are outside 0-130.
func YearsSince(date *string, at time.Time) *float64 {
	if date == nil {
		return nil
	}
	dob, err := time.Parse(time.DateOnly, *date)
	if err != nil {
		return nil
	}
	y, m, d := at.UTC().Date()
	years := y - dob.Year()
	if m < dob.Month() || (m == dob.Month() && d < dob.Day()) {
		years--
	}
	if years < 0 || years > MaxAge {
		return nil
	}
	return new(float64(years))
}

// Smoking is the record's smoking status from the field that last gave
// it: smokerRiskStatus (shown as given; smoker or not as SmokerOf reads
// it) or smoker ("Smoker" / "Non-smoker"). With no marker,
// smokerRiskStatus first when it has a known meaning; when the two
// disagree, the one that says smoker, the safer reading of an answer that
// contradicts itself. smoker is nil when unknown.
func Smoking(f record.Fields) (smoker *bool, shown *string) {
	status := SmokerOf(f.SmokerRiskStatus)
	switch latestOf(f).Smoker {
	case "smokerRiskStatus":
		if f.SmokerRiskStatus != nil {
			return status, f.SmokerRiskStatus
		}
	case "smoker":
		if f.Smoker != nil {
			return f.Smoker, smokerText(*f.Smoker)
		}
	}
	switch {
	case status != nil && f.Smoker != nil && *status != *f.Smoker && *status:
		return status, f.SmokerRiskStatus
	case status != nil && f.Smoker != nil && *status != *f.Smoker:
		return f.Smoker, smokerText(true)
	case status != nil || (f.SmokerRiskStatus != nil && f.Smoker == nil):
		return status, f.SmokerRiskStatus
	case f.Smoker != nil:
		return f.Smoker, smokerText(*f.Smoker)
	}
	return nil, nil
}

func smokerText(smoker bool) *string {
	if smoker {
		return new("Smoker")
	}
	return new("Non-smoker")
}

// SmokerOf reads a smokerRiskStatus text: lower-cased, with '-' and '_'
// read as spaces, a text containing "never", "non", "not", "former",
// "quit" or "ex smoker", or equal to "no", is a non-smoker; else one
// containing "current", "smok", "daily" or "occasional", or equal to
// "yes", is a smoker; any other text has no known meaning (nil).
func SmokerOf(status *string) *bool {
	if status == nil {
		return nil
	}
	s := words(*status)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	switch {
	case s == "no" || has("never", "non", "not", "former", "quit", "ex smoker"):
		return new(false)
	case s == "yes" || has("current", "smok", "daily", "occasional"):
		return new(true)
	}
	return nil
}

// words is s lower-cased, with '-' and '_' read as spaces and each run of
// spaces as one, trimmed: "Ex-Smoker " is "ex smoker". One allocation:
// the request decoder reads every status sent.
func words(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for _, r := range s {
		if r == '-' || r == '_' || unicode.IsSpace(r) {
			gap = b.Len() > 0
			continue
		}
		if gap {
			b.WriteByte(' ')
			gap = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
