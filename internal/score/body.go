package score

import "github.com/pads-dev/pads/internal/record"

// Conversion factors. Kilograms per pound is exact by definition; pounds
// per kilogram is the factor the product contract names for the payload.
const (
	KgPerLb   = 0.45359237
	LbPerKg   = 2.20462
	CmPerInch = 2.54
)

// Plausibility bounds of the body measurements. A value outside them is
// not a worse reading but a wrong one (a unit mix-up, inches sent without
// their feet), so the model leaves it out rather than score it.
const (
	MinBMI, MaxBMI  = 10.0, 80.0 // kg/m²
	MaxHeightIn     = 96.0       // 8 ft
	MinLoneHeightIn = 36.0       // heightIn alone below this is read as inches missing their feet
)

// Body is a record's weight, height and BMI as the model reads them; nil
// is unknown or left out as implausible.
type Body struct {
	WeightKg, WeightLb *float64 // the same weight in both units
	HeightIn           *float64
	BMI                *float64
}

// BodyOf reads the body measurements, one source order each: weight from
// weightLb, else weightKg; height from HeightInches; BMI from riskBmi, else
// from that weight and height. A BMI outside MinBMI-MaxBMI is left out;
// when the weight and height themselves make one, both are left out too,
// since nothing says which of the two is wrong.
func BodyOf(f record.Fields) Body {
	b := Body{WeightKg: WeightKg(f), HeightIn: HeightInches(f)}
	if b.WeightKg != nil && b.HeightIn != nil && !PlausibleBMI(BMIOf(*b.WeightKg, *b.HeightIn)) {
		b.WeightKg, b.HeightIn = nil, nil
	}
	switch {
	case b.WeightKg == nil:
	case f.WeightLb != nil:
		b.WeightLb = f.WeightLb
	default:
		b.WeightLb = new(*f.WeightKg * LbPerKg)
	}
	switch {
	case f.RiskBmi != nil && PlausibleBMI(*f.RiskBmi):
		b.BMI = f.RiskBmi
	case b.WeightKg != nil && b.HeightIn != nil:
		b.BMI = new(BMIOf(*b.WeightKg, *b.HeightIn))
	}
	return b
}

// WeightKg is the record's weight in kilograms: weightLb converted, else
// weightKg. Pounds come first, as the contract's payload weight does.
func WeightKg(f record.Fields) *float64 {
	switch {
	case f.WeightLb != nil:
		return new(*f.WeightLb * KgPerLb)
	case f.WeightKg != nil:
		return f.WeightKg
	}
	return nil
}

// HeightInches is the record's height in inches from its first plausible
// source: heightFt*12 + heightIn when heightFt is given (at most 8 ft);
// heightIn alone as a whole height in inches (36 to 96: less is taken for
// inches whose feet are missing); heightCm / 2.54.
func HeightInches(f record.Fields) *float64 {
	if f.HeightFt != nil {
		if total := *f.HeightFt*12 + valueOr(f.HeightIn, 0); total > 0 && total <= MaxHeightIn {
			return &total
		}
	} else if f.HeightIn != nil && *f.HeightIn >= MinLoneHeightIn && *f.HeightIn <= MaxHeightIn {
		return f.HeightIn
	}
	if f.HeightCm != nil && *f.HeightCm > 0 {
		return new(*f.HeightCm / CmPerInch)
	}
	return nil
}

// BMIOf is the body mass index of a weight in kilograms and a height in
// inches.
func BMIOf(kg, inches float64) float64 {
	m := inches * CmPerInch / 100
	return kg / (m * m)
}

// PlausibleBMI reports whether bmi is one a living adult can have.
func PlausibleBMI(bmi float64) bool { return bmi >= MinBMI && bmi <= MaxBMI }
