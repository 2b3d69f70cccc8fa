package score

import (
	"slices"
	"strings"
	"testing"
)

// TestHasWordsIsContainsBetweenSpaces: hasWords(s, w) says what
// strings.Contains(s, " "+w+" ") says, for every status phrase against
// texts that hold it whole, in part, or inside a longer word.
func TestHasWordsIsContainsBetweenSpaces(t *testing.T) {
	texts := []string{"", "never", "non smoker", "i am a non smoker now", "nonsmoker", "current", "currently smoking",
		"ex smoker since 2019", "smoker", "not a current smoker", "quit quit", "used to smoke", "everyday", "every day",
		"some days", "socially", "social", "stopped", "stillness", "still smokes", "formerly a smoker", "neverr"}
	phrases := slices.Concat(smokingNegated, smokingCurrent, smokingFormer, []string{"never"})
	for _, text := range texts {
		s := " " + words(text) + " "
		for _, w := range phrases {
			if got, want := hasWords(s, w), strings.Contains(s, " "+w+" "); got != want {
				t.Errorf("hasWords(%q, %q) = %v, want %v", s, w, got, want)
			}
		}
	}
}
