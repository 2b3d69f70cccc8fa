package score

import (
	"math"

	"github.com/pads-dev/pads/internal/record"
)

// Conversion factors. Kilograms per pound is exact by definition; pounds
// per kilogram is the factor the product contract names for the payload.
const (
	KgPerLb   = 0.45359237
	LbPerKg   = 2.20462
	CmPerInch = 2.54
)

// Plausibility bounds of the body measurements. A value outside them is
// not a worse reading but a wrong one (a unit mix-up, inches sent without
// their feet), so the model leaves it out rather than score it. The
// weight bounds are those of the API's weightLb and weightKg fields: a
// weight converted from one unit is left out when it falls outside the
// other unit's bounds, so no derived value leaves its field's range.
const (
	MinBMI, MaxBMI           = 10.0, 80.0 // kg/m²
	MaxHeightIn              = 96.0       // 8 ft
	MinLoneHeightIn          = 36.0       // heightIn alone below this is read as inches missing their feet
	MinHeightCm              = 30.0       // heightCm's lower bound
	MinWeightLb, MaxWeightLb = 2.0, 1400.0
	MinWeightKg, MaxWeightKg = 1.0, 650.0
)

// Body is a record's weight, height and BMI as the model reads them; nil
// is unknown or left out as implausible or contradictory.
type Body struct {
	WeightKg, WeightLb *float64 // the same weight in both units
	HeightIn           *float64
	BMI                *float64
	// BMIComputed: BMI is made from WeightKg and HeightIn (else it is
	// riskBmi as given).
	BMIComputed bool
	// Conflicts names the fields left out because they disagree and no
	// save said which came last.
	Conflicts []string
}

// BodyOf reads the body measurements, each from the field that last gave
// it (record.Latest; see Weight, Height), and BMI from riskBmi or from
// that weight and height, whichever was given last; when a later riskBmi
// disagrees with the weight and height by more than BMITolerance, they
// are superseded and left out with it. A BMI outside
// MinBMI-MaxBMI is left out; when the weight and height themselves make
// one, both are left out too, since nothing says which of the two is wrong.
func BodyOf(f record.Fields) Body {
	var b Body
	kg, fromLb, wc := weight(f)
	in, hc := Height(f)
	b.WeightKg, b.HeightIn = kg, in
	b.Conflicts = append(wc, hc...)
	if b.WeightKg != nil && b.HeightIn != nil && !PlausibleBMI(BMIOf(*b.WeightKg, *b.HeightIn)) {
		b.WeightKg, b.HeightIn = nil, nil
	}
	switch {
	case b.WeightKg == nil:
	case fromLb:
		b.WeightLb = f.WeightLb // shown as given, not converted back
	default:
		b.WeightLb = new(*b.WeightKg * LbPerKg)
	}
	var computed *float64
	if b.WeightKg != nil && b.HeightIn != nil {
		computed = new(BMIOf(*b.WeightKg, *b.HeightIn))
	}
	var given *float64
	if f.RiskBmi != nil && PlausibleBMI(*f.RiskBmi) {
		given = f.RiskBmi
	}
	bmi, i, conflict := pick(latestOf(f).BMI, BMITolerance, source{"riskBmi", given}, source{record.BodyFields, computed})
	b.BMI, b.BMIComputed = bmi, i == 1
	if conflict {
		b.Conflicts = append(b.Conflicts, "riskBmi")
	}
	if i == 0 && computed != nil && math.Abs(*computed-*bmi) > BMITolerance {
		// A later riskBmi superseded the weight and height: shown beside
		// it they would make the BMI the scores did not use.
		b.WeightKg, b.WeightLb, b.HeightIn = nil, nil, nil
	}
	return b
}

// Weight is the record's weight in kilograms from the field that last
// gave it (weightLb converted, or weightKg); with no such marker, weightLb
// first, and neither when the two disagree by more than WeightToleranceKg.
// A weight outside either field's bounds once converted is left out.
func Weight(f record.Fields) (kg *float64, conflicts []string) {
	kg, _, conflicts = weight(f)
	return kg, conflicts
}

// weight is Weight, and whether the weight came from weightLb.
func weight(f record.Fields) (kg *float64, fromLb bool, conflicts []string) {
	var lb *float64
	if f.WeightLb != nil {
		lb = new(*f.WeightLb * KgPerLb)
	}
	kg, i, conflict := pick(latestOf(f).Weight, WeightToleranceKg, source{"weightLb", lb}, source{"weightKg", f.WeightKg})
	if conflict {
		return nil, false, []string{"weightKg", "weightLb"}
	}
	if kg != nil && (*kg < MinWeightKg || *kg > MaxWeightKg || *kg*LbPerKg < MinWeightLb || *kg*LbPerKg > MaxWeightLb) {
		return nil, false, nil
	}
	return kg, i == 0, nil
}

// Height is the record's height in inches from the field that last gave
// it: feet and inches (see imperialHeight) or heightCm / 2.54; with no
// such marker, feet and inches first, and neither when the two disagree
// by more than HeightToleranceIn. A height over 8 ft or under 30 cm is
// left out.
func Height(f record.Fields) (inches *float64, conflicts []string) {
	var metric *float64
	if f.HeightCm != nil {
		metric = new(*f.HeightCm / CmPerInch)
	}
	in, conflict := choose(latestOf(f).Height, HeightToleranceIn, source{"heightFt", imperialHeight(f)}, source{"heightCm", metric})
	if conflict {
		return nil, given(f, "heightCm", "heightFt", "heightIn")
	}
	if in != nil && (*in*CmPerInch < MinHeightCm || *in > MaxHeightIn) {
		return nil, nil
	}
	return in, nil
}

// imperialHeight is heightFt*12 + heightIn when both are given (at most
// 8 ft); heightIn alone as a whole height in inches (36 to 96: less is
// taken for inches whose feet are missing); heightFt alone is not used,
// the mirror case: its inches may never have been sent, and a 5 ft 11 in
// person read as 5 ft would be called obese (a whole number of feet is
// sent with heightIn 0).
func imperialHeight(f record.Fields) *float64 {
	switch {
	case f.HeightFt != nil && f.HeightIn != nil:
		if total := *f.HeightFt*12 + *f.HeightIn; total > 0 && total <= MaxHeightIn {
			return &total
		}
	case f.HeightIn != nil && *f.HeightIn >= MinLoneHeightIn && *f.HeightIn <= MaxHeightIn:
		return f.HeightIn
	}
	return nil
}

// HeightInches is the height of one body's fields as the model reads it,
// for the request decoder's checks.
func HeightInches(f record.Fields) *float64 {
	in, _ := Height(f)
	return in
}

// BMIOf is the body mass index of a weight in kilograms and a height in
// inches.
func BMIOf(kg, inches float64) float64 {
	m := inches * CmPerInch / 100
	return kg / (m * m)
}

// PlausibleBMI reports whether bmi is one a living adult can have.
func PlausibleBMI(bmi float64) bool { return bmi >= MinBMI && bmi <= MaxBMI }

// WeightKg is the weight of one body's fields as the model reads it, for
// the request decoder's checks.
func WeightKg(f record.Fields) *float64 {
	kg, _ := Weight(f)
	return kg
}
