package fhir_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/record"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the code (after a deliberate change of the Bundles)")

// goldenCase is a case of the payload golden vectors
// (internal/payload/testdata/cases.json): the FHIR Bundles are made from
// the same records as the seed payloads.
type goldenCase struct {
	Name                  string        `json:"name"`
	Note                  string        `json:"note"`
	Fields                record.Fields `json:"fields"`
	AssessmentCompletedAt time.Time     `json:"assessmentCompletedAt"`
}

// at is when the golden Bundles are made, as for the payload vectors.
var at = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func loadCases(t *testing.T) []goldenCase {
	t.Helper()
	raw, err := os.ReadFile("../payload/testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var in struct{ Cases []goldenCase }
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	if len(in.Cases) < 60 {
		t.Fatalf("%d cases, want at least 60", len(in.Cases))
	}
	return in.Cases
}

// goldenBundles returns every case's two Bundles, indented, by golden file
// name: <case>.non-sensitive.json and <case>.sensitive.json.
func goldenBundles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, c := range loadCases(t) {
		rec := record.Record{Fields: c.Fields, AssessmentCompletedAt: c.AssessmentCompletedAt}
		for _, dt := range []record.DataType{record.NonSensitive, record.Sensitive} {
			b, err := json.MarshalIndent(fhir.Build(dt, rec, at), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			out[c.Name+"."+string(dt)+".json"] = append(b, '\n')
		}
	}
	return out
}

// TestGoldenBundles compares the Bundles made from every payload golden
// case with testdata/golden, exactly. TestBundlesValidateAgainstR4 runs
// the FHIR validator over them. Regenerate with -update only for a
// deliberate change, and read the diff as a receiving clinic would.
func TestGoldenBundles(t *testing.T) {
	t.Parallel()
	bundles := goldenBundles(t)
	for name, got := range bundles {
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -update to create)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the golden file:\n%s", name, got)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if len(files) != len(bundles) {
		t.Errorf("%d golden files for %d Bundles: remove the files of cases that are gone", len(files), len(bundles))
	}
}
