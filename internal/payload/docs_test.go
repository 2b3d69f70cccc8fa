package payload_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestDocsCountTheGoldenVectors keeps the number of golden vectors that
// docs/scoring.md states equal to testdata/cases.json's.
func TestDocsCountTheGoldenVectors(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/scoring.md")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var in struct{ Cases []json.RawMessage }
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`holds the input records \((\d+):`).FindSubmatch(doc)
	if m == nil {
		t.Fatal(`docs/scoring.md no longer says "holds the input records (N: ..."`)
	}
	if n, _ := strconv.Atoi(string(m[1])); n != len(in.Cases) {
		t.Errorf("docs/scoring.md says %d golden vectors, testdata/cases.json holds %d", n, len(in.Cases))
	}
}
