package score

import (
	"math"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// HRVMeasure says which heart rate variability measure an HRV value is.
type HRVMeasure int

// The two short-term HRV measures pads receives.
const (
	SDNN  HRVMeasure = iota + 1 // heartRateVariabilityMs
	RMSSD                       // rmssd
)

// Inputs are the measurements the model reads, each taken from one source
// in one order (see FromRecord); nil is unknown. The sensitive payload
// shows these values, so it never shows a value the model did not use.
type Inputs struct {
	Age                 *float64 // years
	Systolic, Diastolic *float64 // mmHg
	HeartRate           *float64 // resting, beats/min
	IrregularHeartBeats *bool
	HRV                 *float64   // ms
	HRVMeasure          HRVMeasure // what HRV is; 0 when HRV is nil
	BreathingRate       *float64   // breaths/min
	SpO2                *float64   // %
	BMI                 *float64   // kg/m²
	TotalChol, HDL, LDL *float64   // mg/dL
	Triglycerides       *float64   // mg/dL
	MetSComponents      *float64   // 0-5 metabolic syndrome components
	TenYearCVD          *float64   // %
	Smoker, Diabetic    *bool

	// WeightLb and HeightIn are the weight and height behind BMI after the
	// plausibility rules of Body. The model reads them only through BMI;
	// the payload shows them.
	WeightLb, HeightIn *float64
}

// FromRecord reads the model's inputs from a record's fields; at is when
// the assessment completed, for the age. The source orders:
//
//   - heart rate: heartRateBpm, else riskRestingHeartRate, else 60000/ibi
//     (to 0.1 bpm);
//   - HRV: heartRateVariabilityMs (SDNN), else rmssd (RMSSD);
//   - weight, height and BMI: see BodyOf;
//   - age: see Age.
func FromRecord(f record.Fields, at time.Time) Inputs {
	hrv, measure := f.HeartRateVariabilityMs, SDNN
	if hrv == nil {
		hrv, measure = f.Rmssd, RMSSD
	}
	if hrv == nil {
		measure = 0
	}
	body := BodyOf(f)
	return Inputs{
		Age:                 Age(f, at),
		Systolic:            f.SystolicBloodPressureMmhg,
		Diastolic:           f.DiastolicBloodPressureMmhg,
		HeartRate:           HeartRate(f),
		IrregularHeartBeats: f.IrregularHeartBeats,
		HRV:                 hrv,
		HRVMeasure:          measure,
		BreathingRate:       f.BreathingRateBpm,
		SpO2:                f.Oxygen,
		BMI:                 body.BMI,
		TotalChol:           f.RiskTotalCholestrol,
		HDL:                 f.RiskHdl,
		LDL:                 f.RiskLdl,
		Triglycerides:       f.RiskTriglycerdies,
		MetSComponents:      f.RiskMetSComp,
		TenYearCVD:          f.RiskTenYrCvd,
		Smoker:              f.Smoker,
		Diabetic:            f.Diabetic,
		WeightLb:            body.WeightLb,
		HeightIn:            body.HeightIn,
	}
}

// HeartRate is the record's resting heart rate: heartRateBpm, else
// riskRestingHeartRate, else 60000 / ibi rounded to 0.1 bpm (the value
// the payload shows is the value scored).
func HeartRate(f record.Fields) *float64 {
	switch {
	case f.HeartRateBpm != nil:
		return f.HeartRateBpm
	case f.RiskRestingHeartRate != nil:
		return f.RiskRestingHeartRate
	case f.Ibi != nil && *f.Ibi > 0:
		return new(math.Round(600000 / *f.Ibi) / 10)
	}
	return nil
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
	return new(float64(years))
}

// atLeast reports whether the age is known and at least years.
func atLeast(age *float64, years float64) bool { return age != nil && *age >= years }

func valueOr(v *float64, otherwise float64) float64 {
	if v == nil {
		return otherwise
	}
	return *v
}

// round rounds half up. The tiny nudge makes a value that is x.5 on paper
// but x.4999999999 in binary floating point round as it does by hand.
func round(v float64) float64 { return math.Round(v + 1e-9) }

// whole rounds a vital sign to the nearest whole unit, half up: every
// blood pressure, heart rate, breathing and SpO2 rule is defined on whole
// readings.
func whole(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return new(round(*v))
}
