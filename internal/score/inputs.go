package score

import (
	"math"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// Inputs are the measurements the model reads; nil is unknown.
type Inputs struct {
	Systolic, Diastolic *float64 // mmHg
	HeartRate           *float64 // resting, beats/min
	SDNN                *float64 // heartRateVariabilityMs, ms
	RMSSD               *float64 // ms
	BreathingRate       *float64 // breaths/min
	SpO2                *float64 // %
	BMI                 *float64 // kg/m²
	TotalChol, HDL, LDL *float64 // mg/dL
	Triglycerides       *float64 // mg/dL
	MetSComponents      *float64 // 0-5 metabolic syndrome components
	TenYearCVD          *float64 // %
	Smoker, Diabetic    *bool
	IrregularHeartBeats *bool
}

// FromRecord reads the model's inputs from a record's fields. Heart rate
// falls back to riskRestingHeartRate, then to 60000/ibi; BMI to riskBmi,
// then to weight and height.
func FromRecord(f record.Fields) Inputs {
	return Inputs{
		Systolic:            f.SystolicBloodPressureMmhg,
		Diastolic:           f.DiastolicBloodPressureMmhg,
		HeartRate:           first(f.HeartRateBpm, f.RiskRestingHeartRate, fromIBI(f.Ibi)),
		SDNN:                f.HeartRateVariabilityMs,
		RMSSD:               f.Rmssd,
		BreathingRate:       f.BreathingRateBpm,
		SpO2:                f.Oxygen,
		BMI:                 first(f.RiskBmi, bmi(f)),
		TotalChol:           f.RiskTotalCholestrol,
		HDL:                 f.RiskHdl,
		LDL:                 f.RiskLdl,
		Triglycerides:       f.RiskTriglycerdies,
		MetSComponents:      f.RiskMetSComp,
		TenYearCVD:          f.RiskTenYrCvd,
		Smoker:              f.Smoker,
		Diabetic:            f.Diabetic,
		IrregularHeartBeats: f.IrregularHeartBeats,
	}
}

func first(vs ...*float64) *float64 {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

func fromIBI(ibi *float64) *float64 {
	if ibi == nil || *ibi <= 0 {
		return nil
	}
	hr := 60000 / *ibi
	return &hr
}

// Conversion factors, exact by definition of the units.
const (
	KgPerLb   = 0.45359237
	CmPerInch = 2.54
)

// WeightKg is the record's weight in kilograms, from weightKg or weightLb.
func WeightKg(f record.Fields) *float64 {
	if f.WeightKg != nil {
		return f.WeightKg
	}
	if f.WeightLb != nil {
		return new(*f.WeightLb * KgPerLb)
	}
	return nil
}

// HeightInches is the record's height in inches: heightFt*12 + heightIn,
// heightIn alone (a whole height in inches), or heightCm / 2.54.
func HeightInches(f record.Fields) *float64 {
	if f.HeightFt != nil || f.HeightIn != nil {
		if total := valueOr(f.HeightFt, 0)*12 + valueOr(f.HeightIn, 0); total > 0 {
			return &total
		}
		return nil
	}
	if f.HeightCm != nil && *f.HeightCm > 0 {
		return new(*f.HeightCm / CmPerInch)
	}
	return nil
}

func bmi(f record.Fields) *float64 {
	kg, in := WeightKg(f), HeightInches(f)
	if kg == nil || in == nil {
		return nil
	}
	m := *in * CmPerInch / 100
	v := *kg / (m * m)
	return &v
}

// Age is the record's age at time at: age when given, else the completed
// years since dateOfBirth.
func Age(f record.Fields, at time.Time) *float64 {
	if f.Age != nil {
		return f.Age
	}
	if f.DateOfBirth == nil {
		return nil
	}
	dob, err := time.Parse(time.DateOnly, *f.DateOfBirth)
	if err != nil {
		return nil
	}
	y, m, d := at.UTC().Date()
	years := y - dob.Year()
	if m < dob.Month() || (m == dob.Month() && d < dob.Day()) {
		years--
	}
	if years < 0 {
		return nil
	}
	a := float64(years)
	return &a
}

func valueOr(v *float64, otherwise float64) float64 {
	if v == nil {
		return otherwise
	}
	return *v
}

// round rounds half up. The tiny nudge makes a value that is x.5 on paper
// but x.4999999999 in binary floating point round as it does by hand.
func round(v float64) float64 { return math.Round(v + 1e-9) }
