package payload_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
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
// files are checked against docs/scoring.md by testdata/check_golden.py
// (TestGoldenVectorsFollowTheDocs); regenerate them with -update only for a
// deliberate model change (and a new score.Version), then run the checker.
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
	if len(in.Cases) < 60 {
		t.Fatalf("%d cases, want at least 60", len(in.Cases))
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

// TestGoldenVectorsFollowTheDocs runs testdata/check_golden.py, which
// recomputes every golden payload from docs/scoring.md alone, sharing no
// code with pads.
func TestGoldenVectorsFollowTheDocs(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on the PATH: run internal/payload/testdata/check_golden.py elsewhere to check the golden vectors")
	}
	out, err := exec.Command(python, filepath.Join("testdata", "check_golden.py")).CombinedOutput()
	if err != nil {
		t.Fatalf("check_golden.py: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
