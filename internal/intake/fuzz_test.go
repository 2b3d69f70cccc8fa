package intake_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
)

// FuzzDecode checks that no body panics the decoder, that every failure is
// an *intake.Error, and that every accepted patch holds only catalogue fields
// with in-range values of their kind.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{`+base+`,"age":"36","zip":2134,"city":null}`), true)
	f.Add([]byte(`{`+base+`,"heartRateBpm":72,"oxygen":"98","diabetic":"yes"}`), false)
	f.Add([]byte(`{"a":1}`), true)
	f.Add([]byte(`[1,2]`), false)
	f.Add([]byte(`{`+base+`,"uuid":"6F1C8B0E-1D2A-4C3B-9E8F-0A1B2C3D4E5F","dob":"2000-02-29"}`), true)
	f.Fuzz(func(t *testing.T, body []byte, nonSensitive bool) {
		dt := record.Sensitive
		if nonSensitive {
			dt = record.NonSensitive
		}
		req, err := intake.Decode(body, dt, today)
		if err != nil {
			var ie *intake.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not *intake.Error", err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatal("accepted invalid JSON")
		}
		if req.AssessmentType == "" || req.FunnelID == "" || req.Email == "" {
			t.Fatal("accepted a request without its required fields")
		}
		for i := range record.NumFields() {
			v, given := req.Patch.Values.Get(i)
			if !given && !req.Patch.Clears(i) {
				continue
			}
			name := record.FieldName(i)
			fld, ok := intake.Lookup(name)
			if !ok || fld.Name != name || !fld.Allows(dt) {
				t.Fatalf("patch holds %q", name)
			}
			if n, isNum := v.(float64); isNum && (math.IsNaN(n) || n < fld.Min || n > fld.Max) {
				t.Fatalf("%s out of range", name)
			}
		}
	})
}
