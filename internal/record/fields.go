package record

import (
	"fmt"
	"reflect"
	"strings"
)

// Fields are a record's values, one Go field per field of the intake
// catalogue (internal/intake/fields.go), in its order, under the same
// camelCase name (the JSON tag). nil is "not given". A stored record is
// this struct encoded with encoding/json.
type Fields struct {
	AssessmentType *string `json:"assessmentType,omitempty"`
	FunnelID       *string `json:"funnelID,omitempty"`
	Email          *string `json:"email,omitempty"`
	PatientUUID    *string `json:"patientUUID,omitempty"`
	IPAddress      *string `json:"IPAddress,omitempty"`

	FirstName           *string  `json:"firstName,omitempty"`
	LastName            *string  `json:"lastName,omitempty"`
	PhoneNumber         *string  `json:"phoneNumber,omitempty"`
	ZipCode             *string  `json:"zipCode,omitempty"`
	ContactConsent      *bool    `json:"contactConsent,omitempty"`
	BiologicalSex       *string  `json:"biologicalSex,omitempty"`
	Age                 *float64 `json:"age,omitempty"`
	DateOfBirth         *string  `json:"dateOfBirth,omitempty"` // YYYY-MM-DD
	City                *string  `json:"city,omitempty"`
	State               *string  `json:"state,omitempty"`
	FormCompleted       *bool    `json:"formCompleted,omitempty"`
	AssessmentCompleted *bool    `json:"assessmentCompleted,omitempty"`

	HeightFt                   *float64 `json:"heightFt,omitempty"`
	HeightIn                   *float64 `json:"heightIn,omitempty"`
	HeightCm                   *float64 `json:"heightCm,omitempty"`
	WeightLb                   *float64 `json:"weightLb,omitempty"`
	WeightKg                   *float64 `json:"weightKg,omitempty"`
	Diabetic                   *bool    `json:"diabetic,omitempty"`
	Smoker                     *bool    `json:"smoker,omitempty"`
	Hypertension               *bool    `json:"hypertension,omitempty"`
	HypertensionMedication     *bool    `json:"hypertensionMedication,omitempty"`
	HeartRateBpm               *float64 `json:"heartRateBpm,omitempty"`
	HeartRateVariabilityMs     *float64 `json:"heartRateVariabilityMs,omitempty"`
	IrregularHeartBeats        *bool    `json:"irregularHeartBeats,omitempty"`
	SystolicBloodPressureMmhg  *float64 `json:"systolicBloodPressureMmhg,omitempty"`
	DiastolicBloodPressureMmhg *float64 `json:"diastolicBloodPressureMmhg,omitempty"`
	BreathingRateBpm           *float64 `json:"breathingRateBpm,omitempty"`
	RiskTotalCholestrol        *float64 `json:"riskTotalCholestrol,omitempty"`
	RiskHdl                    *float64 `json:"riskHdl,omitempty"`
	RiskLdl                    *float64 `json:"riskLdl,omitempty"`
	RiskTriglycerdies          *float64 `json:"riskTriglycerdies,omitempty"`
	SmokerRiskStatus           *string  `json:"smokerRiskStatus,omitempty"`
	RiskBmi                    *float64 `json:"riskBmi,omitempty"`
	Oxygen                     *float64 `json:"oxygen,omitempty"`
	RiskTenYrCvd               *float64 `json:"riskTenYrCvd,omitempty"`
	RiskFraminghamScore        *float64 `json:"riskFraminghamScore,omitempty"`
	RiskBapwv                  *float64 `json:"riskBapwv,omitempty"`
	RiskRestingHeartRate       *float64 `json:"riskRestingHeartRate,omitempty"`
	RiskMetSComp               *float64 `json:"riskMetSComp,omitempty"`
	Rmssd                      *float64 `json:"rmssd,omitempty"`
	Ibi                        *float64 `json:"ibi,omitempty"`

	// Latest is not a field of the catalogue: it names, for each quantity
	// that several fields can give, the field that last gave it (see
	// Latest). It must stay the last Go field: the catalogue's fields are
	// the ones before it. nil in records stored before it existed.
	Latest *Latest `json:"latest,omitempty"`
}

// The fields of Fields by number, for code that handles every field alike
// (the request decoder, the merge): fieldNames[i] is the catalogue name of
// Fields' i-th Go field.
var fieldNames, fieldByName = func() ([]string, map[string]int) {
	t := reflect.TypeFor[Fields]()
	n := t.NumField() - 1 // the last, Latest, is not a catalogue field
	if t.Field(n).Name != "Latest" {
		panic("record: Latest must be the last field of Fields")
	}
	names := make([]string, n)
	byName := make(map[string]int, n)
	for i := range n {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch f.Type {
		case reflect.TypeFor[*string](), reflect.TypeFor[*float64](), reflect.TypeFor[*bool]():
		default:
			panic("record: field " + f.Name + " is not a *string, *float64 or *bool")
		}
		names[i], byName[name] = name, i
	}
	if len(names) > 64 {
		panic("record: more than 64 fields; widen Patch's set of cleared fields")
	}
	return names, byName
}()

// NumFields is the number of fields of a record.
func NumFields() int { return len(fieldNames) }

// FieldName returns the catalogue name of field i.
func FieldName(i int) string { return fieldNames[i] }

// FieldIndex returns the number of the field with the catalogue name.
func FieldIndex(name string) (int, bool) {
	i, ok := fieldByName[name]
	return i, ok
}

// Set sets field i to v, a string, float64 or bool of the field's type.
// Another type is a programming error, and panics.
func (f *Fields) Set(i int, v any) {
	fv := reflect.ValueOf(f).Elem().Field(i)
	// A pointer to a copy of v, made without reflect.New: the request
	// decoder sets every field a save gives, and this was a tenth of it.
	var p reflect.Value
	switch x := v.(type) {
	case string:
		p = reflect.ValueOf(&x)
	case float64:
		p = reflect.ValueOf(&x)
	case bool:
		p = reflect.ValueOf(&x)
	}
	if !p.IsValid() || p.Type() != fv.Type() {
		panic(fmt.Sprintf("record: field %s takes a %s, not a %T", fieldNames[i], fv.Type().Elem(), v))
	}
	fv.Set(p)
}

// Get returns the value of field i, if it is given.
func (f *Fields) Get(i int) (any, bool) {
	fv := reflect.ValueOf(f).Elem().Field(i)
	if fv.IsNil() {
		return nil, false
	}
	return fv.Elem().Interface(), true
}
