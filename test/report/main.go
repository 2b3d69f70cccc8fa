// Command report reads `go test -json` on its standard input, prints each
// package's outcome and each failed test's output as they come, and ends
// with a summary: which suites ran, which were skipped, and for each
// skipped one the reason and the fix. ./test.sh pipes the tests into it.
//
// A suite is the tests that need one tool (PostgreSQL, Chromium, Node...):
// it is skipped when its tests skip for that tool's absence. With CI=true
// a skipped suite fails the run: CI must have every tool. The last line is
// "packages: N passed, N failed", which CI looks for.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// suite is a group of tests that need a tool; a skip whose reason holds
// one of match is that suite skipped.
type suite struct {
	name  string
	pkgs  []string // where its tests are, under the module
	match []string
	fix   string
}

// suites are the tool-bound suites of pads, in the order the summary
// lists them. Their skip messages are the tests' own.
var suites = []suite{
	{"PostgreSQL store and multi-process tests", []string{"internal/store/postgres", "cmd/pads"}, []string{"PADS_TEST_POSTGRES_URL", "PostgreSQL server programs", "postgres user to run the server"},
		"install PostgreSQL's server (Debian: apt-get install postgresql) and run ./test.sh again: it starts a throwaway server; or export PADS_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/postgres?sslmode=disable (tests create and drop databases there)"},
	{"PostgreSQL client tools", []string{"internal/store/postgres"}, []string{"pg_dump"}, "apt-get install postgresql-client"},
	{"operator console in a browser", []string{"cmd/pads"}, []string{"Chromium"}, "install Chromium (Debian: apt-get install chromium)"},
	{"Node checks (standardwebhooks, FHIR validator, Node receiver)", []string{"cmd/pads", "internal/fhir"}, []string{"npm ci", "node and npm"},
		"install Node.js and npm (Debian: apt-get install nodejs npm) and run ./test.sh again: it runs npm ci in test/node and docs/receivers/node"},
	{"systemd unit check", []string{"cmd/pads"}, []string{"systemd-analyze"}, "install systemd (Debian: apt-get install systemd)"},
	{"golden vectors' independent check", []string{"internal/payload"}, []string{"python3"}, "install Python 3 (Debian: apt-get install python3)"},
	{"full disk", []string{"cmd/pads"}, []string{"small filesystem of its own"}, "run as root on Linux (it mounts a small tmpfs); see cmd/pads/fulldisk_test.go"},
}

type testKey struct{ pkg, test string }

type report struct {
	out       io.Writer
	output    map[testKey][]string // by test, until it ends
	pkgOutput map[string][]string  // package-level lines (build errors)
	passed    map[string]bool      // packages that passed
	failed    map[string]bool      // packages that failed
	skips     map[string][]string  // suite name -> "pkg Test: reason"
	other     map[string][]string  // a skip reason no suite claims -> tests
	tests     struct{ pass, fail, skip int }
}

func main() {
	r := &report{out: os.Stdout, output: map[testKey][]string{}, pkgOutput: map[string][]string{},
		passed: map[string]bool{}, failed: map[string]bool{}, skips: map[string][]string{}, other: map[string][]string{}}
	start := time.Now()
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(r.out, sc.Text()) // go vet or build output: pass it on
			continue
		}
		r.add(e)
	}
	ci := os.Getenv("CI") == "true" || os.Getenv("CI") == "1"
	if !r.summary(ci, time.Since(start)) {
		os.Exit(1)
	}
}

func (r *report) add(e event) {
	k := testKey{e.Package, e.Test}
	switch e.Action {
	case "build-output": // the compiler's errors, before the package's fail
		fmt.Fprint(r.out, e.Output)
	case "output":
		if e.Test != "" {
			r.output[k] = append(r.output[k], e.Output)
		} else {
			r.pkgOutput[e.Package] = append(r.pkgOutput[e.Package], e.Output)
		}
	case "pass", "fail", "skip":
		if e.Test == "" {
			r.packageDone(e)
			return
		}
		r.testDone(e, k)
	}
}

func (r *report) testDone(e event, k testKey) {
	lines := r.output[k]
	delete(r.output, k)
	if strings.Contains(e.Test, "/") { // subtests are counted by their parent
		switch e.Action {
		case "fail":
			fmt.Fprint(r.out, strings.Join(lines, ""))
		case "skip": // but their reasons count: a suite may skip inside a test
			r.skipped(e.Package, e.Test, skipReason(lines))
		}
		return
	}
	switch e.Action {
	case "pass":
		r.tests.pass++
	case "fail":
		r.tests.fail++
		fmt.Fprint(r.out, strings.Join(lines, ""))
	case "skip":
		r.tests.skip++
		r.skipped(e.Package, e.Test, skipReason(lines))
	}
}

// skipReason is the message of a test's t.Skip: the last "file.go:NN: "
// line of its output before "--- SKIP", without that prefix.
func skipReason(lines []string) string {
	reason := "(no reason given)"
	for _, l := range lines {
		if strings.Contains(l, "--- SKIP") {
			break
		}
		msg := strings.TrimSpace(l)
		if where, rest, ok := strings.Cut(msg, ": "); ok && strings.Contains(where, ".go:") && !strings.Contains(where, " ") {
			reason = rest
		}
	}
	return reason
}

func (r *report) skipped(pkg, test, reason string) {
	where := strings.TrimPrefix(pkg, "github.com/pads-dev/pads/") + " " + test
	for _, s := range suites {
		for _, m := range s.match {
			if strings.Contains(reason, m) {
				r.skips[s.name] = append(r.skips[s.name], where+": "+reason)
				return
			}
		}
	}
	r.other[reason] = append(r.other[reason], where)
}

func (r *report) packageDone(e event) {
	name := strings.TrimPrefix(e.Package, "github.com/pads-dev/pads/")
	switch e.Action {
	case "fail":
		r.failed[e.Package] = true
		// Tests that never ended (a timeout's panic, a crash) say why in
		// their own output.
		for k, lines := range r.output {
			if k.pkg == e.Package {
				fmt.Fprint(r.out, strings.Join(lines[max(0, len(lines)-20):], ""))
				delete(r.output, k)
			}
		}
		fmt.Fprintf(r.out, "FAIL\t%s\t%.1fs\n", name, e.Elapsed)
		// A package that did not build says why only at package level.
		for _, l := range r.pkgOutput[e.Package] {
			if !strings.HasPrefix(l, "FAIL") && !strings.HasPrefix(l, "ok") && strings.TrimSpace(l) != "" {
				fmt.Fprint(r.out, "    "+l)
			}
		}
	case "pass":
		r.passed[e.Package] = true
		fmt.Fprintf(r.out, "ok\t%s\t%.1fs\n", name, e.Elapsed)
	}
	delete(r.pkgOutput, e.Package)
}

// summary prints what ran and what did not, and reports whether the run
// passed: no failed package, and under CI no skipped suite.
func (r *report) summary(ci bool, took time.Duration) bool {
	w := r.out
	fmt.Fprintf(w, "\n== pads test summary (%s) ==\n", took.Round(time.Second))
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped, in %d packages\n", r.tests.pass, r.tests.fail, r.tests.skip, len(r.passed)+len(r.failed))
	fmt.Fprintln(w, "ran      Go unit and end-to-end tests (race detector on)")
	missing := 0
	for _, s := range suites {
		got := r.skips[s.name]
		if len(got) == 0 {
			if r.tested(s.pkgs) {
				fmt.Fprintf(w, "ran      %s\n", s.name)
			} else {
				fmt.Fprintf(w, "-        %s: its packages (%s) were not selected\n", s.name, strings.Join(s.pkgs, ", "))
			}
			continue
		}
		missing++
		fmt.Fprintf(w, "SKIPPED  %s: %d tests, e.g. %s\n         fix: %s\n", s.name, len(got), got[0], s.fix)
	}
	reasons := make([]string, 0, len(r.other))
	for reason := range r.other {
		reasons = append(reasons, reason)
	}
	slices.Sort(reasons)
	for _, reason := range reasons {
		fmt.Fprintf(w, "skipped  %d tests by their own choice: %q (%s)\n", len(r.other[reason]), reason, r.other[reason][0])
	}
	failed := len(r.failed)
	if ci && missing > 0 {
		fmt.Fprintf(w, "CI=true: %d suites were skipped for a missing tool; CI must have them all\n", missing)
		failed += missing
	}
	fmt.Fprintf(w, "packages: %d passed, %d failed\n", len(r.passed), failed)
	return failed == 0
}

// tested reports whether one of pkgs (paths in the module) was tested.
func (r *report) tested(pkgs []string) bool {
	for _, p := range pkgs {
		full := "github.com/pads-dev/pads/" + p
		if r.passed[full] || r.failed[full] {
			return true
		}
	}
	return false
}
