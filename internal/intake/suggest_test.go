package intake_test

import (
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
)

// TestCorrectSpellingsOfTheSeedsMisspelledFieldsAreKept: riskTotalCholesterol
// and riskTriglycerides are the seed's riskTotalCholestrol and
// riskTriglycerdies, not ignored keys.
func TestCorrectSpellingsOfTheSeedsMisspelledFieldsAreKept(t *testing.T) {
	t.Parallel()
	tests := []struct{ key, field string }{
		{"riskTotalCholesterol", "riskTotalCholestrol"},
		{"risk_total_cholesterol", "riskTotalCholestrol"},
		{"totalCholesterol", "riskTotalCholestrol"},
		{"riskTotalCholestrol", "riskTotalCholestrol"},
		{"riskTriglycerides", "riskTriglycerdies"},
		{"triglycerides", "riskTriglycerdies"},
		{"riskTriglycerdies", "riskTriglycerdies"},
	}
	for _, tt := range tests {
		body := `{"assessmentType":"faceScan","funnelID":"f","email":"a@example.com","` + tt.key + `":180}`
		req, err := intake.Decode([]byte(body), record.Sensitive, time.Now())
		if err != nil {
			t.Fatalf("%s: %v", tt.key, err)
		}
		f, ok := intake.Lookup(tt.key)
		if !ok || f.Name != tt.field || len(req.Ignored) != 0 {
			t.Errorf("%s: names %v %v, ignored %v; want %s kept", tt.key, f, ok, req.Ignored, tt.field)
		}
	}
}

func TestANearMissIsIgnoredWithASuggestion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key, want string
	}{
		{"riskHdll", "riskHdl"},                           // a letter added
		{"heartRateBp", "heartRateBpm"},                   // a letter removed
		{"oxygan", "oxygen"},                              // a letter changed
		{"firstNmae", "firstName"},                        // neighbours swapped
		{"risk_total_cholesteral", "riskTotalCholestrol"}, // near an alias, named by the field
		{"zip_cod", "zipCode"},
		{"colour", ""},            // near nothing
		{"sexx", "biologicalSex"}, // one edit from the alias sex
		{"ibi2", "ibi"},
		{"ip2", ""},       // under 4 letters: near too much to guess
		{"firstName", ""}, // a field: no suggestion
		{"heightXX", ""},  // two edits
		{"heightC", ""},   // one edit from heightCm and from heightIn? no: from heightCm only
	}
	for _, tt := range tests {
		got := intake.Suggest(tt.key)
		if tt.key == "heightC" {
			if got != "heightCm" {
				t.Errorf("Suggest(heightC) = %q", got)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.key, intake.Suggest(tt.key), tt.want)
		}
	}
	body := `{"assessmentType":"faceScan","funnelID":"f","email":"a@example.com","riskHdll":55,"colour":"blue","oxygen":97}`
	req, err := intake.Decode([]byte(body), record.Sensitive, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Ignored) != 2 || req.DidYouMean["riskHdll"] != "riskHdl" || len(req.DidYouMean) != 1 {
		t.Fatalf("ignored %v, didYouMean %v", req.Ignored, req.DidYouMean)
	}
}
