package intake

import (
	"fmt"
	"math"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// How far two units of one measurement in one body may disagree: enough
// for each to be rounded to a whole unit, not enough for a unit mix-up.
const (
	maxWeightGapKg = 1
	maxHeightGapIn = 1
)

// contradictions finds body measurements that are each in range but
// cannot all be true: feet and inches over 8 ft, two weights or two
// heights that disagree, a weight and height whose BMI no adult has. It
// sees one body only; combinations that arise across saves are left out of
// scoring by the model instead (score.BodyOf). Every field involved gets
// an error, and no message repeats a value.
func contradictions(v *record.Fields) []FieldError {
	var errs []FieldError
	for _, check := range []func(*record.Fields) []FieldError{overEightFeet, weightsDisagree, heightsDisagree} {
		errs = append(errs, check(v)...)
	}
	if len(errs) > 0 {
		return errs
	}
	return implausibleBMI(v)
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
	return given(v, "weightKg and weightLb must give the same weight, within 1 kg", "weightKg", "weightLb")
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
	return given(v, "the height in feet and inches and heightCm must agree, within 1 inch", "heightFt", "heightIn", "heightCm")
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
