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
// (see FromRecord); nil is unknown. The sensitive payload shows these
// values, so it never shows a value the model did not use.
type Inputs struct {
	Age                 *float64 // years
	Systolic, Diastolic *float64 // mmHg
	HeartRate           *float64 // resting, beats/min
	// HeartRateFrom names the field the heart rate came from:
	// heartRateBpm, riskRestingHeartRate or ibi (for its provenance).
	HeartRateFrom       string
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
	// Hypertension is declared hypertension: hypertension, or
	// hypertensionMedication, true.
	Hypertension *bool

	// AgeContradictory: age and dateOfBirth disagree and no save said
	// which came last, so Age is nil and the results say why.
	AgeContradictory bool
	// Conflicts names the fields of other quantities left out because they
	// disagree (records stored before pads-score-3 only).
	Conflicts []string

	// WeightLb and HeightIn are the weight and height behind BMI after the
	// plausibility rules of Body, and SmokerStatus the smoking status as
	// its field gave it. The model reads them only through BMI and Smoker;
	// the payload shows them.
	WeightLb, HeightIn *float64
	SmokerStatus       *string
	// BMIComputed: BMI is made from WeightLb and HeightIn, not riskBmi.
	BMIComputed bool
}

// FromRecord reads the model's inputs from a record's fields; at is when
// the assessment completed, for the age. Each quantity that several
// fields give comes from the field that gave it last (record.Latest):
//
//   - heart rate: see HeartRate;
//   - HRV: heartRateVariabilityMs (SDNN), else rmssd (RMSSD): two
//     measures, not two fields of one;
//   - weight, height and BMI: see BodyOf;
//   - age: see Age; smoking: see Smoking.
func FromRecord(f record.Fields, at time.Time) Inputs {
	hrv, measure := f.HeartRateVariabilityMs, SDNN
	if hrv == nil {
		hrv, measure = f.Rmssd, RMSSD
	}
	if hrv == nil {
		measure = 0
	}
	body := BodyOf(f)
	hr, hrFrom, conflicts := heartRateOf(f)
	age, ageConflict := Age(f, at)
	smoker, status := Smoking(f)
	return Inputs{
		Age:                 age,
		AgeContradictory:    ageConflict,
		Systolic:            f.SystolicBloodPressureMmhg,
		Diastolic:           f.DiastolicBloodPressureMmhg,
		HeartRate:           hr,
		HeartRateFrom:       hrFrom,
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
		Smoker:              smoker,
		Diabetic:            f.Diabetic,
		Hypertension:        declaredHypertension(f),
		Conflicts:           append(conflicts, body.Conflicts...),
		WeightLb:            body.WeightLb,
		HeightIn:            body.HeightIn,
		SmokerStatus:        status,
		BMIComputed:         body.BMIComputed,
	}
}

// declaredHypertension is true when either answer says so, false when
// hypertension is false and no medication is declared, else unknown.
func declaredHypertension(f record.Fields) *bool {
	switch {
	case isTrue(f.Hypertension) || isTrue(f.HypertensionMedication):
		return new(true)
	case f.Hypertension != nil:
		return new(false)
	}
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

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
