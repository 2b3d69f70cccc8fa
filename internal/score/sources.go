package score

import (
	"math"
	"slices"
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
	bpm, _, conflicts = heartRateOf(f)
	return bpm, conflicts
}

// heartRateFields are the fields of the heart rate, in source order.
var heartRateFields = []string{"heartRateBpm", "riskRestingHeartRate", "ibi"}

// heartRateOf is HeartRate and the field the rate came from ("" with none).
func heartRateOf(f record.Fields) (bpm *float64, from string, conflicts []string) {
	var fromIbi *float64
	if f.Ibi != nil && *f.Ibi > 0 {
		if v := math.Round(600000 / *f.Ibi) / 10; v >= MinHeartRate && v <= MaxHeartRate {
			fromIbi = &v
		}
	}
	bpm, i, conflict := pick(latestOf(f).HeartRate, HeartRateTolerance,
		source{heartRateFields[0], f.HeartRateBpm}, source{heartRateFields[1], f.RiskRestingHeartRate}, source{heartRateFields[2], fromIbi})
	if conflict {
		return nil, "", given(f, heartRateFields...)
	}
	if i < 0 {
		return nil, "", nil
	}
	return bpm, heartRateFields[i], nil
}

// Age is the record's age at time at from the field that last gave it:
// the whole years since dateOfBirth (left out when negative or over 130,
// age's bounds), or age. With no marker, dateOfBirth first (it is exact;
// age is a whole count that can lag), provided the two agree within
// AgeTolerance; contradictory reports that they do not.
func Age(f record.Fields, at time.Time) (years *float64, contradictory bool) {
	return choose(latestOf(f).Age, AgeTolerance, source{"dateOfBirth", YearsSince(f.DateOfBirth, at)}, source{"age", f.Age})
}

// BirthDate is the record's dateOfBirth when it still stands beside the
// age the model reads (Age): when it gave that age, or agrees with it
// within AgeTolerance. A date of birth that a later age superseded is
// nil, so that no payload shows a birth date its scores did not use.
func BirthDate(f record.Fields, at time.Time) *string {
	dob := YearsSince(f.DateOfBirth, at)
	age, _ := Age(f, at)
	if dob == nil || age == nil || math.Abs(*dob-*age) > AgeTolerance {
		return nil
	}
	return f.DateOfBirth
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
// it: smokerRiskStatus (read by SmokingStatus) or smoker ("Current
// smoker" / "Non-smoker"); shown is the status as the model read it, one
// of the SmokingStatus values. With no marker, smokerRiskStatus first
// when it has a known meaning; when the two disagree, the one that says
// smoker, the safer reading of an answer that contradicts itself. smoker
// is nil when unknown.
func Smoking(f record.Fields) (smoker *bool, shown *string) {
	status := SmokerOf(f.SmokerRiskStatus)
	statusText := func() *string { return new(SmokingStatus(*f.SmokerRiskStatus)) }
	switch latestOf(f).Smoker {
	case "smokerRiskStatus":
		if f.SmokerRiskStatus != nil {
			return status, statusText()
		}
	case "smoker":
		if f.Smoker != nil {
			return f.Smoker, smokerText(*f.Smoker)
		}
	}
	switch {
	case status != nil && f.Smoker != nil && *status != *f.Smoker:
		return new(true), new(CurrentSmoker)
	case status != nil || (f.SmokerRiskStatus != nil && f.Smoker == nil):
		return status, statusText()
	case f.Smoker != nil:
		return f.Smoker, smokerText(*f.Smoker)
	}
	return nil, nil
}

func smokerText(smoker bool) *string {
	if smoker {
		return new(CurrentSmoker)
	}
	return new(NonSmoker)
}

// The smoking statuses the payloads show.
const (
	CurrentSmoker = "Current smoker"
	FormerSmoker  = "Former smoker"
	NeverSmoked   = "Never smoked"
	NonSmoker     = "Non-smoker" // not smoking; former or never not said
	UnknownStatus = "Unknown"
)

// SmokerOf reads a smokerRiskStatus text (SmokingStatus): true for a
// current smoker, false for a former, never or non-smoker, nil when the
// text has no known meaning.
func SmokerOf(status *string) *bool {
	if status == nil {
		return nil
	}
	switch SmokingStatus(*status) {
	case CurrentSmoker:
		return new(true)
	case UnknownStatus:
		return nil
	}
	return new(false)
}

// The words of the smoking statuses, checked in this order on the text
// lower-cased with every run of other characters than letters, digits
// and apostrophes read as one space (so "Non-daily" is "non daily").
var (
	// smokingNegated says the person does not smoke now.
	smokingNegated = []string{"non smoker", "nonsmoker", "not a smoker", "not smoking", "not current", "not a current", "not currently", "no longer",
		"does not smoke", "doesn't smoke", "do not smoke", "don't smoke"}
	// smokingCurrent says the person smokes now, however often: a
	// non-daily or occasional smoker is a current smoker (CDC/NHIS, and
	// ACC/AHA 2019 counts any current tobacco use).
	smokingCurrent = []string{"current", "currently", "daily", "every day", "everyday", "some days", "someday",
		"occasional", "occasionally", "still", "social"}
	smokingFormer = []string{"former", "formerly", "quit", "ex smoker", "exsmoker", "stopped", "used to"}
	smokingYes    = []string{"yes", "y", "true"}
	smokingNo     = []string{"no", "n", "false", "none"}
)

// SmokingStatus normalises a smokerRiskStatus text, the first rule that
// holds winning: a negation of smoking (smokingNegated) is a former
// smoker when it also says former or quit, never smoked when it says
// never, else a non-smoker; a word of current smoking (smokingCurrent,
// "still" included: "tried to quit, still smoking") is a current smoker;
// former or quit is a former smoker; never is never smoked; "yes", "y",
// "true" or any other text containing "smok" is a current smoker; "no",
// "n", "false", "none" a non-smoker; any other text is unknown.
func SmokingStatus(text string) string {
	s := " " + words(text) + " "
	has := func(phrases []string) bool {
		for _, w := range phrases {
			if hasWords(s, w) {
				return true
			}
		}
		return false
	}
	is := func(answers []string) bool { return slices.Contains(answers, strings.TrimSpace(s)) }
	switch {
	case has(smokingNegated) && has(smokingFormer):
		return FormerSmoker
	case has(smokingNegated) && has([]string{"never"}):
		return NeverSmoked
	case has(smokingNegated):
		return NonSmoker
	case has(smokingCurrent):
		return CurrentSmoker
	case has(smokingFormer):
		return FormerSmoker
	case has([]string{"never"}):
		return NeverSmoked
	case is(smokingYes) || strings.Contains(s, "smok"):
		return CurrentSmoker
	case is(smokingNo):
		return NonSmoker
	}
	return UnknownStatus
}

// hasWords reports whether s, words between single spaces with a space at
// each end, holds the words of w (one or more, single-spaced) whole: s
// contains " "+w+" ", without making that string (the request decoder
// asks this of every status sent, some forty times).
func hasWords(s, w string) bool {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		if j > 0 && s[j-1] == ' ' && j+len(w) < len(s) && s[j+len(w)] == ' ' {
			return true
		}
		i = j + 1
	}
	return false
}

// words is s lower-cased, every run of characters other than letters,
// digits and apostrophes read as one space, trimmed: "Ex-Smoker, 2019 "
// is "ex smoker 2019". One allocation: the request decoder reads every
// status sent.
func words(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' {
			gap = b.Len() > 0
			continue
		}
		if r == '’' {
			r = '\''
		}
		if gap {
			b.WriteByte(' ')
			gap = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
