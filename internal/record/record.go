package record

import (
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"strings"
	"time"
)

// DataType names the two kinds of data a client sends and receives, and
// the events of deliveries.
type DataType string

// The two data types of the API and of deliveries.
const (
	NonSensitive DataType = "non-sensitive"
	Sensitive    DataType = "sensitive"
	// ResultsUpdated is an event only, never a data type of the API: the
	// new health results of a completed assessment, after a later save
	// changed them.
	ResultsUpdated DataType = "results-updated"
)

// Results reports whether events of dt carry health results (sensitive
// and results-updated).
func (dt DataType) Results() bool { return dt == Sensitive || dt == ResultsUpdated }

// ParseDataType returns the API's data type named exactly s (never
// results-updated, which is an event only).
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
// by email case-insensitively (rules 3 and 4), with Unicode's rules: the
// address in NFKC, then case-folded (docs/api.md). Intake refuses an
// address that NFKC would change (a Kelvin sign, fullwidth letters), so
// no look-alike of an address ever finds its record.
func NormalizeEmail(email string) string {
	return norm.NFKC.String(cases.Fold().String(norm.NFKC.String(strings.TrimSpace(email))))
}

// LegacyEmail is how pads compared emails before NormalizeEmail (plain
// lower-casing): records indexed then are found by it until they are
// indexed again.
func LegacyEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
