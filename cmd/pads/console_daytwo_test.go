package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleOverviewShowsHostsSendsTestsAndRefreshesQuietly drives the
// overview in Chromium: each destination shows its URL's host; the Send
// test button sends a signed test event and shows the answer; the page
// refreshes itself by a meta refresh the CSP allows, and its refreshes
// write no audit entry.
func TestConsoleOverviewShowsHostsSendsTestsAndRefreshesQuietly(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) })
	calm := newReceiver(t, nil)
	path := consoleConfig(t, rc.srv.URL, calm.srv.URL)
	s := startServerAt(t, path)
	b.run(t, "sign in", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#signin")),
		chromedp.SendKeys(chromedp.CSS("#username"), "ops"), chromedp.SendKeys(chromedp.CSS("#key"), opsKey),
		chromedp.Click(chromedp.CSS("#signin")), chromedp.WaitVisible(chromedp.CSS("#trouble-count")))
	host := strings.TrimPrefix(rc.srv.URL, "http://")
	if got := b.text(t, "#dest-acme-main-hook .host"); got != host {
		t.Fatalf("the destination's host: %q, want %q", got, host)
	}
	refresh, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('meta[http-equiv="refresh"]').content`))
	if err != nil || refresh != "30;url=/admin/?refresh=auto" {
		t.Fatalf("meta refresh %q: %v", refresh, err)
	}
	overviews := func() int { return strings.Count(cli(t, "audit", "--config", path), "console.overview") }
	before := overviews()
	for range 3 {
		b.run(t, "refresh as the page does", chromedp.Navigate(s.base+"/admin/?refresh=auto"), chromedp.WaitVisible(chromedp.CSS("#trouble-count")))
	}
	if n := overviews(); n != before {
		t.Fatalf("3 automatic refreshes wrote %d audit entries", n-before)
	}
	b.run(t, "open the overview again", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#trouble-count")))
	if n := overviews(); n != before+1 {
		t.Fatalf("opening the overview wrote %d audit entries, want 1", n-before)
	}

	b.run(t, "send a test", chromedp.Click(chromedp.CSS("#test-acme-main-hook")), chromedp.WaitVisible(chromedp.CSS("#test-outcome")))
	if got := b.text(t, "#test-outcome") + " " + b.text(t, "#test-status"); !strings.HasPrefix(got, "taken HTTP 202") {
		t.Fatalf("the test's outcome: %q", got)
	}
	reqs := rc.wait(t, 1, 10*time.Second)
	if h := reqs[0].header; h.Get("X-Pads-Event") != "test" || h.Get("webhook-id") == "" {
		t.Fatalf("the test request's headers: %v", h)
	}
	b.screenshot(t, "test-sent")
	if audit := cli(t, "audit", "--config", path); !strings.Contains(audit, "console:ops  destinations.test_result  destination:acme/main-hook ok status=202") {
		t.Fatalf("the audit log lacks the test:\n%s", audit)
	}
}

// TestConsolePausesAndResumesADestination drives the Resume and Pause
// buttons in Chromium: a destination paused (by the CLI, before pads
// starts) shows so on the overview and is sent nothing; resumed from the
// console, its waiting delivery goes; paused from the console with a
// reason, the pause is stored as the CLI's is, reason and actor shown;
// both are audited. (That every pads serve honours a stored pause is
// TestAPausedDestinationWaitsAcrossARestartAndResumesInOrder's: here a
// pause made by the console would be read only at the next refresh, and
// nothing tells when that has happened.)
func TestConsolePausesAndResumesADestination(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	rc := newReceiver(t, nil)
	calm := newReceiver(t, nil)
	path := consoleConfig(t, rc.srv.URL, calm.srv.URL)
	cli(t, "destinations", "pause", "acme/main-hook", "--config", path)
	s := startServerAt(t, path)
	completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "ada@example.com")
	// A later save for globex's destination arriving shows the dispatcher
	// has run past acme's delivery, which was due first.
	completeForm(t, s, s.token("globex", globexKey, "storage"), "globex-main", "g@example.com")
	calm.wait(t, 1, 10*time.Second)
	if n := len(rc.all()); n != 0 {
		t.Fatalf("a paused destination was sent %d deliveries", n)
	}
	b.run(t, "sign in", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#signin")),
		chromedp.SendKeys(chromedp.CSS("#username"), "ops"), chromedp.SendKeys(chromedp.CSS("#key"), opsKey),
		chromedp.Click(chromedp.CSS("#signin")), chromedp.WaitVisible(chromedp.CSS("#paused-acme-main-hook")))
	if got := b.text(t, "#paused-acme-main-hook"); !strings.Contains(got, "paused") || !strings.Contains(got, "by "+cliActor()) {
		t.Fatalf("the row of a destination paused by the CLI says %q", got)
	}
	b.run(t, "resume", chromedp.Click(chromedp.CSS("#resume-acme-main-hook")), chromedp.WaitVisible(chromedp.CSS("#pause-acme-main-hook")))
	rc.wait(t, 1, 10*time.Second)

	b.run(t, "pause with a reason", chromedp.SendKeys(chromedp.CSS("#reason-acme-main-hook"), "clinic moving servers"),
		chromedp.Click(chromedp.CSS("#pause-acme-main-hook")), chromedp.WaitVisible(chromedp.CSS("#paused-acme-main-hook")))
	if got := b.text(t, "#paused-acme-main-hook"); !strings.Contains(got, "paused") || !strings.Contains(got, "by console:ops") ||
		!strings.Contains(got, "clinic moving servers") {
		t.Fatalf("the paused destination's row says %q", got)
	}
	b.screenshot(t, "overview-paused")
	if list := cli(t, "destinations", "list", "--config", path); !regexp.MustCompile(`paused since \S+ by console:ops.*clinic moving servers`).MatchString(list) {
		t.Fatalf("the console's pause is not stored as the CLI's is:\n%s", list)
	}
	audit := cli(t, "audit", "--config", path)
	for _, want := range []string{`console:ops\s+destinations\.resume\s+destination:acme/main-hook`,
		`console:ops\s+destinations\.pause\s+destination:acme/main-hook reason="clinic moving servers"`} {
		if !regexp.MustCompile(want).MatchString(audit) {
			t.Errorf("the audit log lacks %s:\n%s", want, audit)
		}
	}
}
