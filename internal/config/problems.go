package config

import (
	"fmt"
	"strings"
)

// MaxProblems bounds how many problems one report lists: enough to fix a
// config in one pass, not so many that a wrong file floods the terminal.
const MaxProblems = 20

// Problems is every problem found in a config, each with its line when
// known, in the order of the checks. Load and Parse return it as their error.
type Problems struct {
	// List holds at most MaxProblems messages, each "line N: path: what".
	List []string
	// More counts the problems found beyond List.
	More int
}

// Error is the single problem as before, or one problem per line.
func (p *Problems) Error() string {
	if len(p.List) == 1 && p.More == 0 {
		return p.List[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems:", len(p.List)+p.More)
	for _, m := range p.List {
		b.WriteString("\n  " + m)
	}
	if p.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", p.More)
	}
	return b.String()
}

func (p *Problems) add(msg string) {
	if len(p.List) < MaxProblems {
		p.List = append(p.List, msg)
		return
	}
	p.More++
}

func (p *Problems) err() error {
	if len(p.List) == 0 {
		return nil
	}
	return p
}

// fail records a problem at path, with its line. A problem under a path
// already reported (a key of a destination whose type is wrong, say) is
// left out: it would only repeat the first one in other words.
func (c *Config) fail(path, format string, args ...any) {
	for p := path; p != ""; p = parent(p) {
		if c.failed[p] {
			return
		}
	}
	if c.failed == nil {
		c.failed = map[string]bool{}
	}
	c.failed[path] = true
	c.problems.add(c.errAt(path, format, args...).Error())
}
