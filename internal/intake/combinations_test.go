package intake_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
)

// TestDecodeRejectsContradictoryBodyMeasurements: values each in range
// that cannot all be true in one body are refused, naming every field
// involved, on both sides of each limit.
func TestDecodeRejectsContradictoryBodyMeasurements(t *testing.T) {
	t.Parallel()
	const (
		tall     = "heightFt and heightIn together must be at most 8 ft"
		weights  = "weightKg and weightLb must give the same weight, within 1 kg"
		heights  = "the height in feet and inches and heightCm must agree, within 1 inch"
		bmi      = "with the weight and height given, BMI must be between 10 and 80"
		rates    = "heartRateBpm, riskRestingHeartRate and 60000/ibi must give the same heart rate, within 5 per minute"
		smoking  = "smoker and smokerRiskStatus must agree"
		pressure = "diastolicBloodPressureMmhg must be below systolicBloodPressureMmhg"
		bmis     = "riskBmi and the BMI of the weight and height given must agree, within 1"
	)
	tests := []struct {
		name   string
		body   string
		fields []string // nil: accepted
		msg    string
	}{
		{"8 ft exactly", `"heightFt":7,"heightIn":12`, nil, ""},
		{"over 8 ft", `"heightFt":7,"heightIn":12.5`, []string{"heightFt", "heightIn"}, tall},
		{"feet and a whole height in inches", `"heightFt":5,"heightIn":70`, []string{"heightFt", "heightIn"}, tall},
		{"heightFt range", `"heightFt":8.5`, []string{"heightFt"}, "must be between 0 and 8"},
		{"heightIn range", `"heightIn":96.5`, []string{"heightIn"}, "must be between 0 and 96"},
		{"riskBmi low edge", `"riskBmi":10`, nil, ""},
		{"riskBmi below range", `"riskBmi":9.9`, []string{"riskBmi"}, "must be between 10 and 80"},
		{"riskBmi above range", `"riskBmi":80.1`, []string{"riskBmi"}, "must be between 10 and 80"},
		{"weights agree", `"weightKg":70,"weightLb":154`, nil, ""},
		{"weights 0.99 kg apart", `"weightKg":70,"weightLb":156.5`, nil, ""},
		{"weights 1.03 kg apart", `"weightKg":70,"weightLb":156.6`, []string{"weightKg", "weightLb"}, weights},
		{"weightKg 70 and weightLb 300", `"weightKg":70,"weightLb":300`, []string{"weightKg", "weightLb"}, weights},
		{"heights agree", `"heightFt":5,"heightIn":10,"heightCm":178`, nil, ""},
		{"heights disagree", `"heightFt":5,"heightIn":10,"heightCm":150`, []string{"heightCm", "heightFt", "heightIn"}, heights},
		{"lone heightIn and heightCm disagree", `"heightIn":70,"heightCm":150`, []string{"heightCm", "heightIn"}, heights},
		{"plausible BMI", `"weightKg":70,"heightCm":175`, nil, ""},
		{"BMI over 80", `"weightKg":70,"heightCm":80`, []string{"heightCm", "weightKg"}, bmi},
		{"BMI under 10", `"weightLb":60,"heightFt":6,"heightIn":6`, []string{"heightFt", "heightIn", "weightLb"}, bmi},
		{"BMI from pounds, which come first", `"weightLb":150,"weightKg":68,"heightCm":175`, nil, ""},
		// A lone heightIn under 36 may be the inches of a heightFt stored
		// earlier: the decoder cannot tell, and the model leaves it out.
		{"lone small heightIn", `"heightIn":10,"weightKg":70`, nil, ""},
		{"heart rates agree", `"heartRateBpm":72,"riskRestingHeartRate":77`, nil, ""},
		{"heart rates 6 apart", `"heartRateBpm":72,"riskRestingHeartRate":78`, []string{"heartRateBpm", "riskRestingHeartRate"}, rates},
		{"heart rate 72 and 150", `"heartRateBpm":72,"riskRestingHeartRate":150`, []string{"heartRateBpm", "riskRestingHeartRate"}, rates},
		{"ibi agrees", `"heartRateBpm":72,"ibi":833`, nil, ""},
		{"ibi of 150 per minute", `"heartRateBpm":72,"ibi":400`, []string{"heartRateBpm", "ibi"}, rates},
		{"all three, ibi apart", `"heartRateBpm":72,"riskRestingHeartRate":72,"ibi":400`, []string{"heartRateBpm", "ibi", "riskRestingHeartRate"}, rates},
		{"ibi 100 is 600 per minute", `"ibi":100`, []string{"ibi"}, "must be between 200 and 3000"},
		{"ibi 200 is 300 per minute", `"ibi":200`, nil, ""},
		{"smoking agrees", `"smoker":false,"smokerRiskStatus":"former smoker"`, nil, ""},
		{"smoking disagrees", `"smoker":false,"smokerRiskStatus":"current smoker"`, []string{"smoker", "smokerRiskStatus"}, smoking},
		{"smoking status of unknown meaning", `"smoker":true,"smokerRiskStatus":"vapes"`, nil, ""},
		{"diastolic above systolic", `"systolicBloodPressureMmhg":100,"diastolicBloodPressureMmhg":110`,
			[]string{"diastolicBloodPressureMmhg", "systolicBloodPressureMmhg"}, pressure},
		{"diastolic equal to systolic", `"systolicBloodPressureMmhg":80,"diastolicBloodPressureMmhg":80`,
			[]string{"diastolicBloodPressureMmhg", "systolicBloodPressureMmhg"}, pressure},
		{"diastolic just below systolic", `"systolicBloodPressureMmhg":80,"diastolicBloodPressureMmhg":79.5`, nil, ""},
		{"a non-daily smoker is a smoker", `"smoker":true,"smokerRiskStatus":"non-daily smoker"`, nil, ""},
		{"still smoking after trying to quit", `"smoker":true,"smokerRiskStatus":"tried to quit, still current smoker"`, nil, ""},
		{"a non-daily smoker is not a non-smoker", `"smoker":false,"smokerRiskStatus":"Non-daily smoker"`, []string{"smoker", "smokerRiskStatus"}, smoking},
		{"riskBmi agrees", `"weightKg":70,"heightCm":175,"riskBmi":23.5`, nil, ""},
		{"riskBmi disagrees", `"weightKg":70,"heightCm":175,"riskBmi":30`, []string{"heightCm", "riskBmi", "weightKg"}, bmis},
		{"riskBmi alone", `"riskBmi":30,"weightKg":70`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ierr := decode(t, `{`+base+`,`+tt.body+`}`, record.Sensitive)
			if tt.fields == nil {
				if ierr != nil {
					t.Fatalf("refused: %v %+v", ierr, ierr.Errors)
				}
				return
			}
			if ierr == nil || ierr.Code != intake.Invalid {
				t.Fatalf("want Invalid, got %v", ierr)
			}
			if ierr.Error() != "Invalid field(s): "+strings.Join(tt.fields, ", ") {
				t.Fatalf("message %q, want fields %v", ierr.Error(), tt.fields)
			}
			var want []intake.FieldError
			for _, f := range tt.fields {
				want = append(want, intake.FieldError{Field: f, Message: tt.msg})
			}
			if !reflect.DeepEqual(ierr.Errors, want) {
				t.Fatalf("Errors = %+v, want %+v", ierr.Errors, want)
			}
		})
	}
}

// TestDecodeRejectsAnAgeTheBirthDateContradicts: age and dateOfBirth in
// one body must agree within a year (today is 2026-11-22).
func TestDecodeRejectsAnAgeTheBirthDateContradicts(t *testing.T) {
	t.Parallel()
	const msg = "age and dateOfBirth must agree, within 1 year"
	for _, tt := range []struct {
		body   string
		refuse bool
	}{
		{`"age":36,"dateOfBirth":"1990-02-28"`, false},
		{`"age":37,"dateOfBirth":"1990-02-28"`, false}, // a birthday between the two
		{`"age":38,"dateOfBirth":"1990-02-28"`, true},
		{`"age":40,"dateOfBirth":"2020-11-01"`, true}, // the review's case: a 6-year-old sent as 40
	} {
		_, ierr := decode(t, `{`+base+`,`+tt.body+`}`, record.NonSensitive)
		if !tt.refuse {
			if ierr != nil {
				t.Errorf("%s refused: %v", tt.body, ierr)
			}
			continue
		}
		want := []intake.FieldError{{Field: "age", Message: msg}, {Field: "dateOfBirth", Message: msg}}
		if ierr == nil || ierr.Error() != "Invalid field(s): age, dateOfBirth" || !reflect.DeepEqual(ierr.Errors, want) {
			t.Errorf("%s: %v", tt.body, ierr)
		}
	}
}
