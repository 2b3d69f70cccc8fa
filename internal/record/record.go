package record

import (
	"time"
)

// Canonical names of the fields the service itself reads. Every other field
// is carried through by name only.
const (
	FieldAssessmentType      = "assessmentType"
	FieldFunnelID            = "funnelID"
	FieldEmail               = "email"
	FieldPatientUUID         = "patientUUID"
	FieldFormCompleted       = "formCompleted"
	FieldAssessmentCompleted = "assessmentCompleted"
)

// DataType names the two kinds of data a client sends and receives.
type DataType string

// The two data types of the API and of deliveries.
const (
	NonSensitive DataType = "non-sensitive"
	Sensitive    DataType = "sensitive"
)

// ParseDataType returns the data type named exactly s.
func ParseDataType(s string) (DataType, bool) {
	switch DataType(s) {
	case NonSensitive, Sensitive:
		return DataType(s), true
	}
	return "", false
}

// Key identifies one record. Records of different clients never share a key,
// even when their patientUUID and assessmentType are equal.
type Key struct {
	ClientID       string
	PatientUUID    string
	AssessmentType string
}

// Fields holds a record's values by canonical name. A value is a string, a
// float64 or a bool; dates are strings in YYYY-MM-DD form.
type Fields map[string]any

// Patch is one save's change to a record: a value overwrites, nil clears.
type Patch map[string]any

// Record is a stored patient assessment record.
type Record struct {
	Key
	FunnelID  string
	Fields    Fields
	CreatedAt time.Time
	UpdatedAt time.Time
	// FormCompletedAt and AssessmentCompletedAt are when the flag was first
	// seen true; zero while it never was. They never move once set, which is
	// what makes a delivery trigger fire once per record.
	FormCompletedAt       time.Time
	AssessmentCompletedAt time.Time
}

// Apply applies p to f as a JSON merge patch: a value overwrites, nil
// clears, an absent field keeps its value. It changes f in place: a save
// works on its own copy of the record, decoded for it.
func (f Fields) Apply(p Patch) {
	for name, v := range p {
		if v == nil {
			delete(f, name)
			continue
		}
		f[name] = v
	}
}

// String returns the string value of a field, if it holds one.
func (f Fields) String(name string) (string, bool) {
	s, ok := f[name].(string)
	return s, ok
}

// Number returns the numeric value of a field, if it holds one.
func (f Fields) Number(name string) (float64, bool) {
	n, ok := f[name].(float64)
	return n, ok
}

// Bool returns the boolean value of a field, if it holds one.
func (f Fields) Bool(name string) (bool, bool) {
	b, ok := f[name].(bool)
	return b, ok
}

// Triggers are the first-time transitions one save caused.
type Triggers struct {
	// FormCompleted: formCompleted became true for the first time.
	FormCompleted bool
	// AssessmentCompleted: assessmentCompleted became true for the first time.
	AssessmentCompleted bool
}

// Advance applies the merged fields to the record's completion times and
// reports which flags turned true for the first time in this save.
func (r *Record) Advance(now time.Time) Triggers {
	var t Triggers
	if v, _ := r.Fields.Bool(FieldFormCompleted); v && r.FormCompletedAt.IsZero() {
		r.FormCompletedAt = now
		t.FormCompleted = true
	}
	if v, _ := r.Fields.Bool(FieldAssessmentCompleted); v && r.AssessmentCompletedAt.IsZero() {
		r.AssessmentCompletedAt = now
		t.AssessmentCompleted = true
	}
	return t
}
