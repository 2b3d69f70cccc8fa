package score_test

import (
	"os"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/score"
)

// TestDocsListEveryFlagAndReason keeps docs/scoring.md equal to the
// model: every flag's code has a table row giving its text, severity and
// HL7 code, and every withheld reason and caveat code is named.
func TestDocsListEveryFlagAndReason(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../docs/scoring.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	rows := map[string]string{}
	for line := range strings.Lines(doc) {
		if strings.HasPrefix(line, "| ") {
			for _, cell := range strings.Split(line, "|") {
				if c := strings.TrimSpace(cell); strings.HasPrefix(c, "`") && strings.HasSuffix(c, "`") {
					if _, seen := rows[strings.Trim(c, "`")]; !seen {
						rows[strings.Trim(c, "`")] = line
					}
				}
			}
		}
	}
	for _, f := range score.AllFlags() {
		row, ok := rows[f.ID]
		if !ok {
			t.Errorf("docs/scoring.md has no row for flag %s", f.ID)
			continue
		}
		for _, want := range []string{f.Label, f.Interpretation} {
			if !strings.Contains(row, want) {
				t.Errorf("docs/scoring.md row of %s lacks %q:\n%s", f.ID, want, row)
			}
		}
		if f.Severity != score.Severe && !strings.Contains(row, "| "+f.Severity.String()+" |") {
			t.Errorf("docs/scoring.md row of %s lacks its severity %s", f.ID, f.Severity)
		}
	}
	for _, reason := range []string{score.AgeContradictory, score.AgeUnknown, score.Under18, score.ContradictoryMeasurements,
		score.InsufficientMeasurements} {
		if _, ok := rows[reason]; !ok {
			t.Errorf("docs/scoring.md has no row for the withheld reason %s", reason)
		}
	}
	for _, c := range score.Caveats {
		if !strings.Contains(doc, "`"+c.Code+"`") {
			t.Errorf("docs/scoring.md does not name the caveat %s", c.Code)
		}
	}
	if !strings.Contains(doc, "(`"+score.Version+"`)") {
		t.Errorf("docs/scoring.md does not name the model %s in its title", score.Version)
	}
}
