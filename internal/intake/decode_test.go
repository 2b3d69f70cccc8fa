package intake_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
)

var today = time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)

const base = `"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com"`

func decode(t *testing.T, body string, dt record.DataType) (*intake.Request, *intake.Error) {
	t.Helper()
	req, err := intake.Decode([]byte(body), dt, today)
	if err == nil {
		return req, nil
	}
	var ie *intake.Error
	if !errors.As(err, &ie) {
		t.Fatalf("Decode error is %T, want *intake.Error", err)
	}
	return nil, ie
}

// patchValue returns the value a patch gives the field of that name.
func patchValue(t *testing.T, p record.Patch, name string) (any, bool) {
	t.Helper()
	i, ok := record.FieldIndex(name)
	if !ok {
		t.Fatalf("no field %q", name)
	}
	return p.Values.Get(i)
}

func TestDecodeFoldsNamesAndAliases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key   string
		value string
		field string
		want  any
	}{
		{"first_name", `"Ada"`, "firstName", "Ada"},
		{"FirstName", `"Ada"`, "firstName", "Ada"},
		{"first-name", `"Ada"`, "firstName", "Ada"},
		{"FIRST.NAME", `"Ada"`, "firstName", "Ada"},
		{"first name", `"Ada"`, "firstName", "Ada"},
		{"phone", `"555-0100"`, "phoneNumber", "555-0100"},
		{"phone_number", `"555-0100"`, "phoneNumber", "555-0100"},
		{"zip", `"02134"`, "zipCode", "02134"},
		{"postalCode", `"02134"`, "zipCode", "02134"},
		{"post_code", `"02134"`, "zipCode", "02134"},
		{"ip", `"192.0.2.1"`, "IPAddress", "192.0.2.1"},
		{"ip_addr", `"2001:db8::1"`, "IPAddress", "2001:db8::1"},
		{"ip_address", `"192.0.2.1"`, "IPAddress", "192.0.2.1"},
		{"uuid", `"6F1C8B0E-1D2A-4C3B-9E8F-0A1B2C3D4E5F"`, "patientUUID", "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"},
		{"patient_id", `"6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"`, "patientUUID", "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"},
		{"dob", `"1990-02-28"`, "dateOfBirth", "1990-02-28"},
		{"birth_date", `"1990-02-28"`, "dateOfBirth", "1990-02-28"},
		{"sex", `"female"`, "biologicalSex", "female"},
		{"form_completed", `"yes"`, "formCompleted", true},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			req, ierr := decode(t, `{`+base+`,"`+tt.key+`":`+tt.value+`}`, record.NonSensitive)
			if ierr != nil {
				t.Fatalf("Decode: %v %+v", ierr, ierr.Errors)
			}
			if got, _ := patchValue(t, req.Patch, tt.field); got != tt.want {
				t.Fatalf("Patch[%s] = %#v, want %#v", tt.field, got, tt.want)
			}
			if len(req.Ignored) != 0 {
				t.Fatalf("Ignored = %v", req.Ignored)
			}
		})
	}
}

func TestDecodeCoercesValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		field string
		json  string
		want  any // nil: the field is not in the patch
	}{
		{"number", "heartRateBpm", `72`, 72.0},
		{"number as string", "heartRateBpm", `"72.5"`, 72.5},
		{"number as string with spaces", "heartRateBpm", `" 72 "`, 72.0},
		{"number with exponent", "heartRateBpm", `7.2e1`, 72.0},
		{"bool true", "diabetic", `true`, true},
		{"bool string yes", "diabetic", `"YES"`, true},
		{"bool string no", "diabetic", `"No"`, false},
		{"bool string 1", "diabetic", `"1"`, true},
		{"bool string false", "diabetic", `"false"`, false},
		{"bool number 0", "diabetic", `0`, false},
		{"bool number 1", "diabetic", `1`, true},
		{"string", "smokerRiskStatus", `"never"`, "never"},
		{"string from number", "smokerRiskStatus", `2`, "2"},
		{"empty optional string is not given", "smokerRiskStatus", `""`, nil},
		{"empty number string is not a number", "heartRateBpm", `""`, "invalid"},
		{"range low edge", "heartRateBpm", `20`, 20.0},
		{"range high edge", "oxygen", `100`, 100.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, ierr := decode(t, `{`+base+`,"`+tt.field+`":`+tt.json+`}`, record.Sensitive)
			if tt.want == "invalid" {
				if ierr == nil || ierr.Code != intake.Invalid {
					t.Fatalf("want Invalid, got %v", ierr)
				}
				return
			}
			if ierr != nil {
				t.Fatalf("Decode: %v %+v", ierr, ierr.Errors)
			}
			got, ok := patchValue(t, req.Patch, tt.field)
			if tt.want == nil {
				if ok {
					t.Fatalf("Patch[%s] = %#v, want absent", tt.field, got)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("Patch[%s] = %#v, want %#v", tt.field, got, tt.want)
			}
		})
	}
}

func TestDecodeRejectsInvalidValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, dt, field, json, msg string
	}{
		{"age above range", "non-sensitive", "age", `131`, "must be between 0 and 130"},
		{"age negative", "non-sensitive", "age", `-1`, "must be between 0 and 130"},
		{"heart rate low", "sensitive", "heartRateBpm", `19.9`, "must be between 20 and 300"},
		{"oxygen high", "sensitive", "oxygen", `100.1`, "must be between 50 and 100"},
		{"systolic high", "sensitive", "systolicBloodPressureMmhg", `301`, "must be between 40 and 300"},
		{"metabolic syndrome criteria are a count of 5", "sensitive", "riskMetSComp", `6`, "must be between 0 and 5"},
		{"number hex string", "sensitive", "heartRateBpm", `"0x48"`, "must be a number"},
		{"number Inf string", "sensitive", "heartRateBpm", `"Inf"`, "must be a number"},
		{"number NaN string", "sensitive", "heartRateBpm", `"NaN"`, "must be a number"},
		{"number overflow", "sensitive", "heartRateBpm", `1e999`, "must be a finite number"},
		{"number bool", "sensitive", "heartRateBpm", `true`, "must be a number"},
		{"number object", "sensitive", "heartRateBpm", `{}`, "must be a number"},
		{"bool 2", "sensitive", "diabetic", `2`, "must be true or false"},
		{"bool maybe", "sensitive", "diabetic", `"maybe"`, "must be true or false"},
		{"string bool", "non-sensitive", "city", `true`, "must be a string"},
		{"string array", "non-sensitive", "city", `["x"]`, "must be a string"},
		{"string too long", "non-sensitive", "city", `"` + strings.Repeat("x", 101) + `"`, "must be at most 100 characters"},
		{"string control char", "non-sensitive", "city", `"a\u0000b"`, "must not contain control characters or invalid UTF-8"},
		{"uuid short", "non-sensitive", "patientUUID", `"1234"`, "must be a UUID in 8-4-4-4-12 hexadecimal form"},
		{"uuid braces", "non-sensitive", "patientUUID", `"{6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e}"`, "must be a UUID in 8-4-4-4-12 hexadecimal form"},
		{"uuid nil", "non-sensitive", "patientUUID", `"00000000-0000-0000-0000-000000000000"`, "must not be the nil UUID"},
		{"date not a date", "non-sensitive", "dateOfBirth", `"1990-02-30"`, "must be a calendar date in YYYY-MM-DD form"},
		{"date other format", "non-sensitive", "dateOfBirth", `"02/28/1990"`, "must be a calendar date in YYYY-MM-DD form"},
		{"date future", "non-sensitive", "dateOfBirth", `"2026-11-23"`, "must not be in the future"},
		{"date too old", "non-sensitive", "dateOfBirth", `"1890-01-01"`, "must be within the last 130 years"},
		{"ip", "non-sensitive", "IPAddress", `"300.1.1.1"`, "must be an IPv4 or IPv6 address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dt, _ := record.ParseDataType(tt.dt)
			_, ierr := decode(t, `{`+base+`,"`+tt.field+`":`+tt.json+`}`, dt)
			if ierr == nil || ierr.Code != intake.Invalid {
				t.Fatalf("want Invalid, got %v", ierr)
			}
			want := []intake.FieldError{{Field: tt.field, Message: tt.msg}}
			if !reflect.DeepEqual(ierr.Errors, want) {
				t.Fatalf("Errors = %+v, want %+v", ierr.Errors, want)
			}
			if ierr.Error() != "Invalid field(s): "+tt.field {
				t.Fatalf("message = %q", ierr.Error())
			}
			if strings.Contains(tt.json, "x") && strings.Contains(ierr.Errors[0].Message, "xxxx") {
				t.Fatal("error echoes the value")
			}
		})
	}
}

func TestDecodeEmail(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`"ada"`, `"Ada <ada@example.com>"`, `"a@b@example.com"`, `"ada@example.com, bob@example.com"`, `"<ada@example.com>"`,
		// Look-alikes NFKC would turn into another address: refused, never
		// matched to that address's record.
		`"\u212Aate@example.com"`, `"\uff4bate@example.com"`} {
		_, ierr := decode(t, `{"assessmentType":"f","funnelID":"x","email":`+bad+`}`, record.NonSensitive)
		if ierr == nil || ierr.Code != intake.Invalid || ierr.Fields[0] != "email" {
			t.Errorf("email %s: got %v, want Invalid email", bad, ierr)
		}
	}
	req, ierr := decode(t, `{"assessmentType":"f","funnelID":"x","email":" Ada@Example.com "}`, record.NonSensitive)
	if ierr != nil || req.Email != "Ada@Example.com" {
		t.Fatalf("got %v %v", req, ierr)
	}
}

// Emails are compared after NFKC and Unicode case folding.
func TestNormalizeEmailFoldsCaseTheUnicodeWay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b string }{
		{"Kate@Example.com", "kate@example.com"},
		{"ÉLODIE@example.com", "élodie@example.com"},
		{"STRASSE@example.com", "straße@example.com"},
		{"ΣΟΦΙΑ@example.com", "σοφια@example.com"},
	} {
		if x, y := record.NormalizeEmail(tc.a), record.NormalizeEmail(tc.b); x != y {
			t.Errorf("%q -> %q, %q -> %q: want the same", tc.a, x, tc.b, y)
		}
	}
}

func TestDecodeChecksInContractOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		dt      record.DataType
		code    intake.Code
		message string
	}{
		{"not json", `{`, record.NonSensitive, intake.InvalidJSON, "Invalid JSON body"},
		{"array", `[]`, record.NonSensitive, intake.InvalidJSON, "Invalid JSON body"},
		{"null", `null`, record.NonSensitive, intake.InvalidJSON, "Invalid JSON body"},
		{"two objects", `{} {}`, record.NonSensitive, intake.InvalidJSON, "Invalid JSON body"},
		{"empty", ``, record.NonSensitive, intake.InvalidJSON, "Invalid JSON body"},
		{"sensitive field in non-sensitive call, before missing", `{"heartRateBpm":"x","oxygen":1}`, record.NonSensitive, intake.NotAllowed,
			"Field(s) not allowed for dataType=non-sensitive: heartRateBpm, oxygen"},
		{"non-sensitive field in sensitive call", `{` + base + `,"first_name":"Ada","formCompleted":true}`, record.Sensitive, intake.NotAllowed,
			"Field(s) not allowed for dataType=sensitive: firstName, formCompleted"},
		{"missing before invalid", `{"email":"nope","age":500}`, record.NonSensitive, intake.Missing,
			"Missing required field(s): assessmentType, funnelID"},
		{"empty required is missing", `{"assessmentType":"","funnelID":"  ","email":null}`, record.NonSensitive, intake.Missing,
			"Missing required field(s): assessmentType, email, funnelID"},
		{"escaped white space is missing", `{"assessmentType":"\t\u0020","funnelID":"\u2003","email":"a@example.com"}`,
			record.NonSensitive, intake.Missing, "Missing required field(s): assessmentType, funnelID"},
		{"invalid values listed sorted", `{` + base + `,"age":500,"city":7.5,"contactConsent":"perhaps"}`, record.NonSensitive, intake.Invalid,
			"Invalid field(s): age, contactConsent"},
		{"two names, different values", `{` + base + `,"zip":"02134","zipCode":"02135"}`, record.NonSensitive, intake.Invalid,
			"Invalid field(s): zipCode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ierr := decode(t, tt.body, tt.dt)
			if ierr == nil {
				t.Fatal("Decode accepted the body")
			}
			if ierr.Code != tt.code || ierr.Error() != tt.message {
				t.Fatalf("got (%d) %q, want (%d) %q", ierr.Code, ierr.Error(), tt.code, tt.message)
			}
		})
	}
}

func TestDecodeKeepsNullsAndListsIgnoredFields(t *testing.T) {
	t.Parallel()
	req, ierr := decode(t, `{`+base+`,"city":null,"zip":"02134","zipCode":"02134","favouriteColour":"blue","Extra":1,"patientUUID":null}`, record.NonSensitive)
	if ierr != nil {
		t.Fatal(ierr)
	}
	want := record.Patch{Values: record.Fields{AssessmentType: new("faceScan"), FunnelID: new("acme-main"),
		Email: new("ada@example.com"), ZipCode: new("02134")}}
	city, _ := record.FieldIndex("city")
	want.Clear(city)
	if !reflect.DeepEqual(req.Patch, want) {
		t.Fatalf("Patch = %#v, want %#v", req.Patch, want)
	}
	if !reflect.DeepEqual(req.Ignored, []string{"Extra", "favouriteColour"}) {
		t.Fatalf("Ignored = %v", req.Ignored)
	}
	if req.PatientUUID != "" || req.AssessmentType != "faceScan" || req.FunnelID != "acme-main" || req.Email != "ada@example.com" {
		t.Fatalf("identity = %+v", req)
	}
}

func TestEveryFieldIsInTheSeedTables(t *testing.T) {
	t.Parallel()
	// Typed from the seed's inbound tables, not from the code.
	nonSensitive := "assessmentType funnelID email patientUUID IPAddress firstName lastName phoneNumber zipCode contactConsent biologicalSex age dateOfBirth city state formCompleted assessmentCompleted"
	sensitive := "assessmentType funnelID email patientUUID IPAddress heightFt heightIn heightCm weightLb weightKg diabetic smoker hypertension hypertensionMedication heartRateBpm heartRateVariabilityMs irregularHeartBeats systolicBloodPressureMmhg diastolicBloodPressureMmhg breathingRateBpm riskTotalCholestrol riskHdl riskLdl riskTriglycerdies smokerRiskStatus riskBmi oxygen riskTenYrCvd riskFraminghamScore riskBapwv riskRestingHeartRate riskMetSComp rmssd ibi assessmentCompleted"
	for dt, names := range map[record.DataType]string{record.NonSensitive: nonSensitive, record.Sensitive: sensitive} {
		var got []string
		for _, f := range intake.Fields {
			if f.Allows(dt) {
				got = append(got, f.Name)
			}
		}
		want := strings.Fields(names)
		if len(got) != len(want) {
			t.Errorf("%s: %d fields, seed has %d", dt, len(got), len(want))
		}
		for _, n := range want {
			if f, ok := intake.Lookup(n); !ok || f.Name != n || !f.Allows(dt) {
				t.Errorf("%s: seed field %s not accepted", dt, n)
			}
		}
	}
}

func TestDecodeKeysGivenTwiceOrEscaped(t *testing.T) {
	t.Parallel()
	if _, ierr := decode(t, `{`+base+`,"city":"A","city":"B"}`, record.NonSensitive); ierr == nil || ierr.Error() != "Invalid field(s): city" {
		t.Fatalf("one key twice with different values: %v", ierr)
	}
	if req, ierr := decode(t, `{`+base+`,"city":"A","city":"A"}`, record.NonSensitive); ierr != nil || *req.Patch.Values.City != "A" {
		t.Fatalf("one key twice with the same value: %v", ierr)
	}
	req, ierr := decode(t, `{`+base+`,"first\u005fname":"Zo\u00eb \"Z\""}`, record.NonSensitive)
	if ierr != nil || *req.Patch.Values.FirstName != `Zoë "Z"` {
		t.Fatalf("escaped key and value: %v %v", req, ierr)
	}
	if _, ierr := decode(t, "{"+base+",\"city\":\"a\xffb\"}", record.NonSensitive); ierr == nil || ierr.Code != intake.Invalid {
		t.Fatalf("invalid UTF-8 in a value: %v", ierr)
	}
	if _, ierr := decode(t, "{"+base+",\"ci\xfety\":1}", record.NonSensitive); ierr == nil || ierr.Code != intake.InvalidJSON {
		t.Fatalf("invalid UTF-8 in a key: %v", ierr)
	}
}
