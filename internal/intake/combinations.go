package intake

import (
	"fmt"
	"math"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// How far two fields of one quantity in one body may disagree: the
// model's tolerances (score.HeartRateTolerance and the others), enough for
// rounding and for two estimates of one scan, not enough for a unit
// mix-up or another person's value.
const (
	maxWeightGapKg = score.WeightToleranceKg
	maxHeightGapIn = score.HeightToleranceIn
)

// contradictions finds values that are each in range but cannot all be
// true: feet and inches over 8 ft, two weights or two heights that
// disagree, a weight and height whose BMI no adult has, and any two fields
// of one quantity that disagree (heart rate, age, BMI, smoking). It sees
// one body only; across saves the field given last wins (record.Latest).
// Every field involved gets an error, and no message repeats a value.
func contradictions(v *record.Fields, today time.Time) []FieldError {
	var errs []FieldError
	for _, check := range []func(*record.Fields) []FieldError{overEightFeet, weightsDisagree, heightsDisagree,
		heartRatesDisagree, smokingDisagrees, impossiblePressure} {
		errs = append(errs, check(v)...)
	}
	errs = append(errs, agesDisagree(v, today)...)
	if len(errs) > 0 {
		return errs
	}
	if errs = implausibleBMI(v); len(errs) > 0 {
		return errs
	}
	return bmisDisagree(v)
}

// heartRatesDisagree compares heartRateBpm, riskRestingHeartRate and the
// rate of ibi (60000/ibi), as the model reads them.
func heartRatesDisagree(v *record.Fields) []FieldError {
	f := record.Fields{HeartRateBpm: v.HeartRateBpm, RiskRestingHeartRate: v.RiskRestingHeartRate, Ibi: v.Ibi}
	if _, conflicts := score.HeartRate(f); len(conflicts) == 0 {
		return nil
	}
	msg := fmt.Sprintf("heartRateBpm, riskRestingHeartRate and 60000/ibi must give the same heart rate, within %s per minute",
		fmtNum(score.HeartRateTolerance))
	return given(v, msg, "heartRateBpm", "riskRestingHeartRate", "ibi")
}

// impossiblePressure refuses a diastolic pressure at or above the
// systolic given with it: a pulse pressure of zero or less is a
// measurement error, not a blood pressure to classify.
func impossiblePressure(v *record.Fields) []FieldError {
	if v.SystolicBloodPressureMmhg == nil || v.DiastolicBloodPressureMmhg == nil ||
		*v.DiastolicBloodPressureMmhg < *v.SystolicBloodPressureMmhg {
		return nil
	}
	return given(v, "diastolicBloodPressureMmhg must be below systolicBloodPressureMmhg", "systolicBloodPressureMmhg", "diastolicBloodPressureMmhg")
}

// agesDisagree compares age with the whole years since dateOfBirth today.
func agesDisagree(v *record.Fields, today time.Time) []FieldError {
	years := score.YearsSince(v.DateOfBirth, today)
	if v.Age == nil || years == nil || math.Abs(*v.Age-*years) <= score.AgeTolerance {
		return nil
	}
	return given(v, fmt.Sprintf("age and dateOfBirth must agree, within %s year", fmtNum(score.AgeTolerance)), "age", "dateOfBirth")
}

// smokingDisagrees compares smoker with the meaning of smokerRiskStatus,
// when the model knows one (score.SmokerOf).
func smokingDisagrees(v *record.Fields) []FieldError {
	status := score.SmokerOf(v.SmokerRiskStatus)
	if v.Smoker == nil || status == nil || *status == *v.Smoker {
		return nil
	}
	return given(v, "smoker and smokerRiskStatus must agree", "smoker", "smokerRiskStatus")
}

// bmisDisagree compares riskBmi with the BMI of the weight and height.
func bmisDisagree(v *record.Fields) []FieldError {
	kg, in := score.WeightKg(*v), score.HeightInches(*v)
	if v.RiskBmi == nil || kg == nil || in == nil || math.Abs(score.BMIOf(*kg, *in)-*v.RiskBmi) <= score.BMITolerance {
		return nil
	}
	msg := fmt.Sprintf("riskBmi and the BMI of the weight and height given must agree, within %s", fmtNum(score.BMITolerance))
	return given(v, msg, "riskBmi", "heightFt", "heightIn", "heightCm", "weightLb", "weightKg")
}

func overEightFeet(v *record.Fields) []FieldError {
	if v.HeightFt == nil || v.HeightIn == nil || *v.HeightFt*12+*v.HeightIn <= score.MaxHeightIn {
		return nil
	}
	return given(v, "heightFt and heightIn together must be at most 8 ft", "heightFt", "heightIn")
}

func weightsDisagree(v *record.Fields) []FieldError {
	if v.WeightKg == nil || v.WeightLb == nil || math.Abs(*v.WeightLb*score.KgPerLb-*v.WeightKg) <= maxWeightGapKg {
		return nil
	}
	return given(v, fmt.Sprintf("weightKg and weightLb must give the same weight, within %s kg", fmtNum(maxWeightGapKg)), "weightKg", "weightLb")
}

// heightsDisagree compares the height in feet and inches with heightCm,
// each read as the model reads it.
func heightsDisagree(v *record.Fields) []FieldError {
	imperial := record.Fields{HeightFt: v.HeightFt, HeightIn: v.HeightIn}
	metric := record.Fields{HeightCm: v.HeightCm}
	in, cm := score.HeightInches(imperial), score.HeightInches(metric)
	if in == nil || cm == nil || math.Abs(*in-*cm) <= maxHeightGapIn {
		return nil
	}
	return given(v, fmt.Sprintf("the height in feet and inches and heightCm must agree, within %s inch", fmtNum(maxHeightGapIn)),
		"heightFt", "heightIn", "heightCm")
}

func implausibleBMI(v *record.Fields) []FieldError {
	kg, in := score.WeightKg(*v), score.HeightInches(*v)
	if kg == nil || in == nil || score.PlausibleBMI(score.BMIOf(*kg, *in)) {
		return nil
	}
	msg := fmt.Sprintf("with the weight and height given, BMI must be between %s and %s", fmtNum(score.MinBMI), fmtNum(score.MaxBMI))
	return given(v, msg, "heightFt", "heightIn", "heightCm", "weightLb", "weightKg")
}

// given returns an error with msg for each of the named fields the body
// gives.
func given(v *record.Fields, msg string, names ...string) []FieldError {
	var errs []FieldError
	for _, name := range names {
		i, _ := record.FieldIndex(name)
		if _, ok := v.Get(i); ok {
			errs = append(errs, FieldError{name, msg})
		}
	}
	return errs
}
