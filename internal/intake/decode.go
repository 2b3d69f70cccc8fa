package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// Code names which check of the contract's order a body failed.
type Code int

// The failures Decode reports, in the order they are checked.
const (
	InvalidJSON Code = iota + 1
	NotAllowed
	Missing
	Invalid
)

// FieldError says what is wrong with one field. It never holds the value.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a body that failed one check. Fields are canonical names, sorted.
type Error struct {
	Code     Code
	DataType record.DataType
	Fields   []string
	Errors   []FieldError // for Invalid: one entry per field
}

// Error returns the contract's message for the failure.
func (e *Error) Error() string {
	switch e.Code {
	case NotAllowed:
		return "Field(s) not allowed for dataType=" + string(e.DataType) + ": " + strings.Join(e.Fields, ", ")
	case Missing:
		return "Missing required field(s): " + strings.Join(e.Fields, ", ")
	case Invalid:
		return "Invalid field(s): " + strings.Join(e.Fields, ", ")
	}
	return "Invalid JSON body"
}

// Request is a decoded, valid save request.
type Request struct {
	DataType       record.DataType
	AssessmentType string
	FunnelID       string
	Email          string
	PatientUUID    string // "" when the call did not give one
	// Patch holds every given field by canonical name, the four above
	// included; nil values clear.
	Patch record.Patch
	// Ignored lists the body's keys that name no field, sorted.
	Ignored []string
}

// Decode reads body as a save request of data type dt. today bounds
// dateOfBirth. The error, when not nil, is an *Error.
func Decode(body []byte, dt record.DataType, today time.Time) (*Request, error) {
	obj, err := object(body)
	if err != nil {
		return nil, &Error{Code: InvalidJSON, DataType: dt}
	}
	req := &Request{DataType: dt, Patch: make(record.Patch, len(obj))}
	raws := make(map[string]any, len(obj))
	var notAllowed, twice []string
	for key, raw := range obj {
		f, ok := Lookup(key)
		switch {
		case !ok:
			req.Ignored = append(req.Ignored, key)
		case !f.Allows(dt):
			notAllowed = appendOnce(notAllowed, f.Name)
		default:
			if prev, seen := raws[f.Name]; seen && !reflect.DeepEqual(prev, raw) {
				twice = appendOnce(twice, f.Name)
			}
			raws[f.Name] = raw
		}
	}
	if len(notAllowed) > 0 {
		slices.Sort(notAllowed)
		return nil, &Error{Code: NotAllowed, DataType: dt, Fields: notAllowed}
	}
	if missing := missingRequired(raws); len(missing) > 0 {
		return nil, &Error{Code: Missing, DataType: dt, Fields: missing}
	}
	var errs []FieldError
	for _, name := range twice {
		errs = append(errs, FieldError{name, "given twice, under two names, with different values"})
	}
	for name, raw := range raws {
		if slices.Contains(twice, name) {
			continue
		}
		if msg := req.set(lookup[fold(name)], raw, today); msg != "" {
			errs = append(errs, FieldError{name, msg})
		}
	}
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
		names := make([]string, len(errs))
		for i, e := range errs {
			names[i] = e.Field
		}
		return nil, &Error{Code: Invalid, DataType: dt, Fields: names, Errors: errs}
	}
	slices.Sort(req.Ignored)
	return req, nil
}

// set coerces raw into the patch; it returns a message for an invalid value.
func (req *Request) set(f *Field, raw any, today time.Time) string {
	if raw == nil {
		if f.Name != record.FieldPatientUUID {
			req.Patch[f.Name] = nil // clears; required fields were checked before
		}
		return ""
	}
	v, skip, msg := coerce(f, raw, today)
	if msg != "" || skip {
		return msg
	}
	req.Patch[f.Name] = v
	switch f.Name {
	case record.FieldAssessmentType:
		req.AssessmentType = v.(string)
	case record.FieldFunnelID:
		req.FunnelID = v.(string)
	case record.FieldEmail:
		req.Email = v.(string)
	case record.FieldPatientUUID:
		req.PatientUUID = v.(string)
	}
	return ""
}

// missingRequired lists the required fields absent, null or empty.
func missingRequired(raws map[string]any) []string {
	var missing []string
	for i := range Fields {
		f := &Fields[i]
		if !f.Required {
			continue
		}
		switch v := raws[f.Name].(type) {
		case nil:
			missing = append(missing, f.Name)
		case string:
			if strings.TrimSpace(v) == "" {
				missing = append(missing, f.Name)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

// object decodes body as exactly one JSON object.
func object(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("not an object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return obj, nil
}

func appendOnce(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
