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
	in := Inputs{
		Systolic:            num(f, "systolicBloodPressureMmhg"),
		Diastolic:           num(f, "diastolicBloodPressureMmhg"),
		HeartRate:           first(num(f, "heartRateBpm"), num(f, "riskRestingHeartRate"), fromIBI(num(f, "ibi"))),
		SDNN:                num(f, "heartRateVariabilityMs"),
		RMSSD:               num(f, "rmssd"),
		BreathingRate:       num(f, "breathingRateBpm"),
		SpO2:                num(f, "oxygen"),
		BMI:                 first(num(f, "riskBmi"), bmi(f)),
		TotalChol:           num(f, "riskTotalCholestrol"),
		HDL:                 num(f, "riskHdl"),
		LDL:                 num(f, "riskLdl"),
		Triglycerides:       num(f, "riskTriglycerdies"),
		MetSComponents:      num(f, "riskMetSComp"),
		TenYearCVD:          num(f, "riskTenYrCvd"),
		Smoker:              flag(f, "smoker"),
		Diabetic:            flag(f, "diabetic"),
		IrregularHeartBeats: flag(f, "irregularHeartBeats"),
	}
	return in
}

func num(f record.Fields, name string) *float64 {
	if v, ok := f.Number(name); ok {
		return &v
	}
	return nil
}

func flag(f record.Fields, name string) *bool {
	if v, ok := f.Bool(name); ok {
		return &v
	}
	return nil
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
	if kg, ok := f.Number("weightKg"); ok {
		return &kg
	}
	if lb, ok := f.Number("weightLb"); ok {
		kg := lb * KgPerLb
		return &kg
	}
	return nil
}

// HeightInches is the record's height in inches: heightFt*12 + heightIn,
// heightIn alone (a whole height in inches), or heightCm / 2.54.
func HeightInches(f record.Fields) *float64 {
	ft, hasFt := f.Number("heightFt")
	in, hasIn := f.Number("heightIn")
	if hasFt || hasIn {
		total := ft*12 + in
		if total > 0 {
			return &total
		}
		return nil
	}
	if cm, ok := f.Number("heightCm"); ok && cm > 0 {
		total := cm / CmPerInch
		return &total
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
	if a, ok := f.Number("age"); ok {
		return &a
	}
	s, ok := f.String("dateOfBirth")
	if !ok {
		return nil
	}
	dob, err := time.Parse(time.DateOnly, s)
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

// round rounds half up. The tiny nudge makes a value that is x.5 on paper
// but x.4999999999 in binary floating point round as it does by hand.
func round(v float64) float64 { return math.Round(v + 1e-9) }
