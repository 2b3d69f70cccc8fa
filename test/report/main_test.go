package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestTheSummaryNamesEachSkippedSuiteWithItsFix feeds the report go test's
// JSON of a run without PostgreSQL and Chromium, a skip inside a subtest
// included, and reads the summary.
func TestTheSummaryNamesEachSkippedSuiteWithItsFix(t *testing.T) {
	events := []event{
		{Action: "output", Package: "github.com/pads-dev/pads/internal/store/postgres", Test: "TestStore", Output: "=== RUN   TestStore\n"},
		{Action: "output", Package: "github.com/pads-dev/pads/internal/store/postgres", Test: "TestStore", Output: "    pgtest.go:26: PADS_TEST_POSTGRES_URL is not set\n"},
		{Action: "output", Package: "github.com/pads-dev/pads/internal/store/postgres", Test: "TestStore", Output: "--- SKIP: TestStore (0.00s)\n"},
		{Action: "skip", Package: "github.com/pads-dev/pads/internal/store/postgres", Test: "TestStore"},
		{Action: "output", Package: "github.com/pads-dev/pads/cmd/pads", Test: "TestConsole/signin", Output: "    console_test.go:36: no Chromium binary found (apt-get install chromium): skipping\n"},
		{Action: "output", Package: "github.com/pads-dev/pads/cmd/pads", Test: "TestConsole/signin", Output: "    --- SKIP: TestConsole/signin (0.00s)\n"},
		{Action: "skip", Package: "github.com/pads-dev/pads/cmd/pads", Test: "TestConsole/signin"},
		{Action: "skip", Package: "github.com/pads-dev/pads/cmd/pads", Test: "TestHeavy"},
		{Action: "pass", Package: "github.com/pads-dev/pads/cmd/pads", Test: "TestSave"},
		{Action: "pass", Package: "github.com/pads-dev/pads/cmd/pads"},
		{Action: "pass", Package: "github.com/pads-dev/pads/internal/store/postgres"},
	}
	for _, ci := range []bool{false, true} {
		var out bytes.Buffer
		r := &report{out: &out, output: map[testKey][]string{}, pkgOutput: map[string][]string{},
			passed: map[string]bool{}, failed: map[string]bool{}, skips: map[string][]string{}, other: map[string][]string{}}
		for _, e := range events {
			r.add(e)
		}
		ok := r.summary(ci, 0)
		got := out.String()
		for _, want := range []string{
			"SKIPPED  PostgreSQL store and multi-process tests: 1 tests, e.g. internal/store/postgres TestStore: PADS_TEST_POSTGRES_URL is not set",
			"fix: install PostgreSQL's server",
			"SKIPPED  operator console in a browser: 1 tests, e.g. cmd/pads TestConsole/signin: no Chromium binary found",
			"fix: install Chromium",
			"ran      systemd unit check",
			"-        golden vectors' independent check: its packages (internal/payload) were not selected",
			`skipped  1 tests by their own choice: "(no reason given)" (cmd/pads TestHeavy)`,
		} {
			if !strings.Contains(got, want) {
				t.Errorf("CI=%v: the summary lacks %q:\n%s", ci, want, got)
			}
		}
		last := got[strings.LastIndex(strings.TrimRight(got, "\n"), "\n")+1:]
		wantLast := map[bool]string{false: "packages: 2 passed, 0 failed\n", true: "packages: 2 passed, 2 failed\n"}[ci]
		if last != wantLast || ok == ci {
			t.Errorf("CI=%v: last line %q, passed %v; want %q", ci, last, ok, wantLast)
		}
	}
}
