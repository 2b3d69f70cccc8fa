package payload_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the code (after a deliberate model change)")

type goldenCase struct {
	Name                  string        `json:"name"`
	Note                  string        `json:"note"`
	Fields                record.Fields `json:"fields"`
	AssessmentCompletedAt time.Time     `json:"assessmentCompletedAt"`
}

type golden struct {
	Model        string               `json:"model"`
	Note         string               `json:"note"`
	NonSensitive payload.NonSensitive `json:"nonSensitive"`
	Sensitive    payload.Sensitive    `json:"sensitive"`
}

// TestGoldenVectors compares the full payloads of each case in
// testdata/cases.json with testdata/golden/<name>.json, exactly. The golden
// files were checked by hand against docs/scoring.md; regenerate them with
// -update only for a deliberate model change (and a new score.Version).
func TestGoldenVectors(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var in struct{ Cases []goldenCase }
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // a misspelt field in a case must not pass unnoticed
	if err := dec.Decode(&in); err != nil {
		t.Fatal(err)
	}
	if len(in.Cases) < 30 {
		t.Fatalf("%d cases, want at least 30", len(in.Cases))
	}
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range in.Cases {
		rec := record.Record{Fields: c.Fields, AssessmentCompletedAt: c.AssessmentCompletedAt}
		got, err := json.MarshalIndent(golden{
			Model: score.Version, Note: c.Note,
			NonSensitive: payload.BuildNonSensitive(rec, at), Sensitive: payload.BuildSensitive(rec, at),
		}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", "golden", c.Name+".json")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -update to create)", c.Name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: payloads differ from %s:\n%s", c.Name, path, got)
		}
	}
}
