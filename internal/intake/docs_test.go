package intake_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/intake"
)

// TestDocsListEveryFieldWithItsRange keeps docs/api.md's field table true:
// one row per catalogue field, with its data type and accepted range.
func TestDocsListEveryFieldWithItsRange(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.Lines(string(doc)) {
		if name, ok := strings.CutPrefix(line, "| `"); ok {
			name, _, _ = strings.Cut(name, "`")
			rows[name] = line
		}
	}
	scopes := map[intake.Scope]string{intake.Both: "both", intake.NonSensitiveOnly: "non-sensitive", intake.SensitiveOnly: "sensitive"}
	for _, f := range intake.Fields {
		row, ok := rows[f.Name]
		if !ok {
			t.Errorf("docs/api.md has no row for %s", f.Name)
			continue
		}
		want := []string{"| " + scopes[f.Scope] + " |"}
		if f.Kind == intake.KindNumber {
			want = append(want, fmt.Sprintf("| %s to %s |", strconv.FormatFloat(f.Min, 'f', -1, 64), strconv.FormatFloat(f.Max, 'f', -1, 64)))
		} else if f.MaxLen > 0 {
			want = append(want, fmt.Sprintf("at most %d characters", f.MaxLen))
		}
		for _, a := range f.Aliases {
			want = append(want, "`"+a+"`")
		}
		// The aliases column holds exactly the field's aliases: the table
		// is how a client learns which spellings pads takes.
		if cols := strings.Split(row, "|"); len(cols) > 5 {
			var listed []string
			for _, a := range strings.Split(cols[5], ",") {
				if a = strings.Trim(strings.TrimSpace(a), "`"); a != "" {
					listed = append(listed, a)
				}
			}
			if !slices.Equal(listed, f.Aliases) {
				t.Errorf("docs/api.md lists the aliases of %s as %q, the catalogue %q", f.Name, listed, f.Aliases)
			}
		}
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("docs/api.md row of %s lacks %q:\n%s", f.Name, w, row)
			}
		}
	}
}
