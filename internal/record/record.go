package record

import (
	"strings"
	"time"
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

// NormalizeEmail is the form in which emails are compared: records are found
// by email case-insensitively (rules 3 and 4).
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
