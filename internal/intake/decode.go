package intake

import (
	"bytes"
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
	// Patch holds every given field, the four above included.
	Patch record.Patch
	// Ignored lists the body's keys that name no field, sorted.
	Ignored []string
	// DidYouMean maps each ignored key one edit away from a field (see
	// Suggest) to that field's name; nil when there is none.
	DidYouMean map[string]string
}

// maxIgnored bounds the ignoredFields listed back to the caller.
const maxIgnored = 100

// Decode reads body as a save request of data type dt. today bounds
// dateOfBirth. The error, when not nil, is an *Error.
func Decode(body []byte, dt record.DataType, today time.Time) (*Request, error) {
	return decode(body, dt, today, members)
}

// walker calls fn for each member of body's top-level object, in order, or
// fails for a body that is not one JSON object. members (scan.go) is the
// one Decode uses.
type walker func(body []byte, fn func(key, v value)) error

func decode(body []byte, dt record.DataType, today time.Time, walk walker) (*Request, error) {
	var (
		req               = &Request{DataType: dt}
		raws              [maxFields]value // by catalogue index; kind 0: not given
		notAllowed, twice []string
		badKey            bool
	)
	err := walk(body, func(k, v value) {
		i, ok := k.field()
		if !ok {
			key, valid := k.str()
			if !valid {
				badKey = true
				return
			}
			if i, ok = index(key); !ok {
				if len(req.Ignored) < maxIgnored {
					req.Ignored = append(req.Ignored, key)
				}
				return
			}
		}
		switch f := &Fields[i]; {
		case !f.Allows(dt):
			notAllowed = appendOnce(notAllowed, f.Name)
		case raws[i].kind != 0 && (raws[i].kind != v.kind || !bytes.Equal(raws[i].raw, v.raw)):
			twice = appendOnce(twice, f.Name)
		default:
			raws[i] = v
		}
	})
	if err != nil || badKey {
		return nil, &Error{Code: InvalidJSON, DataType: dt}
	}
	if len(notAllowed) > 0 {
		slices.Sort(notAllowed)
		return nil, &Error{Code: NotAllowed, DataType: dt, Fields: notAllowed}
	}
	if missing := missingRequired(&raws); len(missing) > 0 {
		return nil, &Error{Code: Missing, DataType: dt, Fields: missing}
	}
	var errs []FieldError
	for i := range Fields {
		f := &Fields[i]
		switch {
		case raws[i].kind == 0:
		case slices.Contains(twice, f.Name):
			errs = append(errs, FieldError{f.Name, "given twice with different values"})
		default:
			if msg := req.set(f, raws[i], today); msg != "" {
				errs = append(errs, FieldError{f.Name, msg})
			}
		}
	}
	if len(errs) == 0 {
		errs = contradictions(&req.Patch.Values, today)
	}
	if len(errs) > 0 {
		names := make([]string, len(errs))
		for i, e := range errs {
			names[i] = e.Field
		}
		slices.Sort(names)
		slices.SortFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
		return nil, &Error{Code: Invalid, DataType: dt, Fields: names, Errors: errs}
	}
	slices.Sort(req.Ignored)
	for _, key := range req.Ignored {
		if s := Suggest(key); s != "" {
			if req.DidYouMean == nil {
				req.DidYouMean = map[string]string{}
			}
			req.DidYouMean[key] = s
		}
	}
	return req, nil
}

// set coerces raw into the patch; it returns a message for an invalid value.
func (req *Request) set(f *Field, raw value, today time.Time) string {
	if raw.kind == 'n' {
		if f.Name != "patientUUID" { // a null uuid is "not given": rules 3 and 4
			req.Patch.Clear(f.slot) // required fields were checked before
		}
		return ""
	}
	v, skip, msg := coerce(f, raw, today)
	if msg != "" || skip {
		return msg
	}
	req.Patch.Values.Set(f.slot, v)
	switch f.Name {
	case "assessmentType":
		req.AssessmentType = v.(string)
	case "funnelID":
		req.FunnelID = v.(string)
	case "email":
		req.Email = v.(string)
	case "patientUUID":
		req.PatientUUID = v.(string)
	}
	return ""
}

// missingRequired lists the required fields absent, null or empty.
func missingRequired(raws *[maxFields]value) []string {
	var missing []string
	for i := range Fields {
		f := &Fields[i]
		if !f.Required {
			continue
		}
		switch v := raws[i]; v.kind {
		case 0, 'n':
			missing = append(missing, f.Name)
		case '"':
			if v.blank() {
				missing = append(missing, f.Name)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

func appendOnce(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
