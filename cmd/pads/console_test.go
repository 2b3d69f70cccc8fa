package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds a Chromium binary. Without one the browser tests are
// skipped, except under CI (.ci/run installs Debian's chromium), where
// that is a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI must install Chromium (.ci/run: need chromium chromium)")
	}
	t.Skip("no Chromium binary found (apt-get install chromium): skipping the console's browser tests")
	return ""
}

// browser is a headless Chromium with a fresh profile, recording the URL
// of every request its pages make.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	urls []string
	dir  string // screenshots
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// Without these Chromium calls Google's servers, and is refused.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1360, 900),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	b := &browser{ctx: ctx, dir: os.Getenv("PADS_SCREENSHOT_DIR")}
	if b.dir == "" {
		dir, err := os.MkdirTemp("", "pads-console-screenshots")
		if err != nil {
			t.Fatal(err)
		}
		b.dir = dir
	}
	// Listening starts the browser; the network domain is on by default.
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.urls = append(b.urls, e.Request.URL)
			b.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	return b
}

func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// screenshot saves the whole page as NAME.png in the screenshot folder.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(b.dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

func (b *browser) location(t *testing.T) string {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// count counts the elements matching a CSS selector.
func (b *browser) count(t *testing.T, sel string) int {
	t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	if err != nil {
		t.Fatalf("count %s: %v", sel, err)
	}
	return n
}

// waitText reloads the page until sel's text contains want.
func (b *browser) waitText(t *testing.T, sel, want string) {
	t.Helper()
	var got string
	if !waitWithin(busyWait, func() bool {
		if got = b.text(t, sel); strings.Contains(got, want) {
			return true
		}
		b.run(t, "reload", chromedp.Reload(), chromedp.WaitReady(chromedp.CSS("body")))
		return false
	}) {
		t.Fatalf("%s says %q, want %q", sel, got, want)
	}
}

// consoleConfig is a delivery config with an admin, a webhook destination
// of acme tried once (main-hook), and one of globex (results).
func consoleConfig(t *testing.T, acmeURL, globexURL string) string {
	t.Helper()
	path := deliveryConfig(t, webhookDest(acmeURL, "        id: main-hook\n        retry: {attempts: 1}\n"),
		webhookDest(globexURL, "        id: results\n"))
	text := strings.Replace(readFile(t, path), "clients:", fmt.Sprintf("admins:\n  - id: ops\n    apiKeys: [{key: %s}]\nclients:", opsKey), 1)
	return writeConfig(t, t.TempDir(), text)
}

// failedCount polls the CLI until n deliveries have failed.
func waitForFailed(t *testing.T, path string, n int) {
	t.Helper()
	waitFor(t, func() bool {
		return strings.Count(cli(t, "deliveries", "list", "--status", "failed", "--config", path), "http_5xx") == n
	})
}

// TestConsoleInABrowserShowsAFailingDestinationAndRecoversIt drives the
// console in headless Chromium: sign in, see the failing destination,
// open its delivery and attempts, replay it once the receiver is back,
// replay the rest from the confirmation, read the audit log, sign out;
// and the page never loads anything from another server.
func TestConsoleInABrowserShowsAFailingDestinationAndRecoversIt(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var healthy atomic.Bool
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if !healthy.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `<b id="injected">receiver down</b> {"error":"maintenance"}`)
		}
	})
	calm := newReceiver(t, nil)
	path := consoleConfig(t, rc.srv.URL, calm.srv.URL)
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	completeForm(t, s, tok, "acme-main", "ada@example.com")
	completeForm(t, s, tok, "acme-main", "grace@example.com")
	globex := s.token("globex", globexKey, "storage")
	for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		completeForm(t, s, globex, "globex-main", email)
	}
	waitForFailed(t, path, 2)
	calm.wait(t, 3, 10*time.Second)

	// No session: the console sends the browser to sign in.
	b.run(t, "open the overview", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#signin")))
	if loc := b.location(t); !strings.HasPrefix(loc, s.base+"/admin/console/signin?next=") {
		t.Fatalf("without a session /admin/ went to %s", loc)
	}
	b.screenshot(t, "signin")
	b.run(t, "sign in with a wrong key",
		chromedp.SendKeys(chromedp.CSS("#username"), "ops"), chromedp.SendKeys(chromedp.CSS("#key"), "not-the-key"),
		chromedp.Click(chromedp.CSS("#signin")), chromedp.WaitVisible(chromedp.CSS(".error")))
	if got := b.text(t, ".error"); !strings.Contains(got, "Unknown operator or wrong key") {
		t.Fatalf("a wrong key: %q", got)
	}
	b.run(t, "sign in",
		chromedp.SetValue(chromedp.CSS("#username"), "ops"), chromedp.SendKeys(chromedp.CSS("#key"), opsKey),
		chromedp.Click(chromedp.CSS("#signin")), chromedp.WaitVisible(chromedp.CSS("#trouble-count")))

	// The overview: the destination stands out, with the receiver's error.
	row := "#dest-acme-main-hook"
	if n := b.count(t, row+".trouble"); n != 1 {
		t.Fatalf("the failing destination does not stand out (%d rows)", n)
	}
	if got := b.text(t, row); !strings.Contains(got, "http_5xx") || !strings.Contains(got, "HTTP 500") || !strings.Contains(got, "failing since") {
		t.Fatalf("the destination's row: %q", got)
	}
	if n := b.count(t, "#dest-globex-results.healthy"); n != 1 {
		t.Fatal("the healthy destination is not shown as healthy")
	}
	if got := b.text(t, "#trouble-count"); !strings.HasPrefix(got, "1 of 2") {
		t.Fatalf("trouble count: %q", got)
	}
	if n := b.count(t, "figure.chart svg rect.failed"); n == 0 {
		t.Fatal("the chart shows no failed delivery")
	}
	b.screenshot(t, "overview-failing")

	// The deliveries of the destination, then the first one's attempts.
	b.run(t, "open the failed deliveries", chromedp.Click(chromedp.CSS(row+" td.bad a")), chromedp.WaitVisible(chromedp.CSS("table.deliveries")))
	if n := b.count(t, "table.deliveries tbody tr"); n != 2 {
		t.Fatalf("%d failed deliveries listed, want 2", n)
	}
	b.screenshot(t, "deliveries")
	b.run(t, "open delivery 1", chromedp.Click(chromedp.CSS("#delivery-1")), chromedp.WaitVisible(chromedp.CSS("table.attempts")))
	answer := b.text(t, "pre.answer")
	if !strings.Contains(answer, `<b id="injected">receiver down</b>`) || b.count(t, "#injected") != 0 {
		t.Fatalf("the receiver's answer must show as text, never as HTML: %q", answer)
	}
	if got := b.text(t, "table.attempts"); !strings.Contains(got, "500") || !strings.Contains(got, "http_5xx") {
		t.Fatalf("attempts: %q", got)
	}
	if got := b.text(t, "section.meta"); !strings.Contains(got, "pads-score") || !strings.Contains(got, "non-sensitive") ||
		strings.Contains(got, "Ada") || strings.Contains(got, "ada@example.com") {
		t.Fatalf("the delivery's metadata, and never a value of the record: %q", got)
	}
	b.screenshot(t, "delivery-failed")

	// The receiver recovers: replay this delivery, and see it delivered.
	healthy.Store(true)
	b.run(t, "replay delivery 1", chromedp.Click(chromedp.CSS("#replay")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	b.waitText(t, "#state", "delivered")
	b.screenshot(t, "delivery-delivered")

	// The other failed delivery, from the confirmation that counts it.
	b.run(t, "confirm a replay of the failed deliveries",
		chromedp.Navigate(s.base+"/admin/console/replays?"+url.Values{"scope": {"acme/main-hook"}, "since": {"1h"}}.Encode()),
		chromedp.WaitVisible(chromedp.CSS("#replay-count")))
	if got := b.text(t, "#replay-count"); !strings.HasPrefix(got, "1 delivery of acme › main-hook has failed since") {
		t.Fatalf("confirmation: %q", got)
	}
	b.screenshot(t, "replay-confirm")
	b.run(t, "replay", chromedp.Click(chromedp.CSS("#confirm-replay")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	if got := b.text(t, ".notice"); !strings.HasPrefix(got, "1 delivery replayed") {
		t.Fatalf("after the replay: %q", got)
	}
	rc.wait(t, 4, 10*time.Second) // two failures, two deliveries
	b.run(t, "open the overview", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#trouble-count")))
	b.waitText(t, "#trouble-count", "0 of 2")
	b.screenshot(t, "overview-recovered")

	// The audit log holds every page and action of the session.
	b.run(t, "open the audit log", chromedp.Navigate(s.base+"/admin/console/audit?actor=console:ops"), chromedp.WaitVisible(chromedp.CSS("table.audit")))
	log := b.text(t, "table.audit")
	for _, action := range []string{"console.signin", "console.overview", "deliveries.list", "deliveries.show", "deliveries.replay",
		"deliveries.count_failed", "deliveries.replay_failed"} {
		if !strings.Contains(log, action) {
			t.Errorf("the audit log lacks %s", action)
		}
	}
	b.screenshot(t, "audit")

	// Sign out: the session is over.
	b.run(t, "sign out", chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#signin")))
	if got := b.text(t, ".notice"); got != "Signed out." {
		t.Fatalf("after signing out: %q", got)
	}
	b.run(t, "open the overview", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#signin")))
	if out := cli(t, "audit", "--config", path); !strings.Contains(out, "console.signout") {
		t.Fatalf("pads audit lacks the sign-out:\n%s", out)
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.urls) < 10 {
		t.Fatalf("the browser made only %d requests: %v", len(b.urls), b.urls)
	}
	for _, u := range b.urls {
		if !strings.HasPrefix(u, s.base+"/") {
			t.Errorf("the console loaded %s from outside the server", u)
		}
	}
}

// TestConsoleRefusesRequestsWithoutSessionOrCSRFToken checks the
// console's guards over plain HTTP: the headers of every page, the
// cookie's attributes, the redirect to sign-in, the CSRF token of every
// form (the sign-in form's too), and the throttle of failed sign-ins.
func TestConsoleRefusesRequestsWithoutSessionOrCSRFToken(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	path := consoleConfig(t, rc.srv.URL, rc.srv.URL)
	s := startServerAt(t, path)
	noRedirect := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, cookies []*http.Cookie, form url.Values) (*http.Response, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, s.base+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for _, c := range cookies {
			req.AddCookie(c)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	checkHeaders := func(what string, h http.Header) {
		t.Helper()
		want := map[string]string{
			"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
			"Cache-Control":           "no-store",
			"X-Frame-Options":         "DENY",
		}
		for k, v := range want {
			if h.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", what, k, h.Get(k), v)
			}
		}
	}

	// Without a session every page redirects to sign-in, and a form post
	// does too.
	for _, p := range []string{"/admin/", "/admin/console/deliveries?state=failed", "/admin/console/deliveries/1", "/admin/console/audit", "/admin/console/replays"} {
		resp, _ := do("GET", p, nil, nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/admin/console/signin?next="+url.QueryEscape(p) {
			t.Errorf("GET %s without a session: %d to %q", p, resp.StatusCode, loc)
		}
		checkHeaders("GET "+p, resp.Header)
	}
	if resp, _ := do("POST", "/admin/console/deliveries/1/replay", nil, url.Values{"csrf": {"x"}}); resp.StatusCode != http.StatusSeeOther ||
		!strings.HasPrefix(resp.Header.Get("Location"), "/admin/console/signin") {
		t.Errorf("POST without a session: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := do("GET", "/admin", nil, nil); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/admin/" {
		t.Errorf("GET /admin: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	// The sign-in form carries a token of its own, bound to a cookie.
	signIn := func(key string) (*http.Response, string) {
		t.Helper()
		resp, body := do("GET", "/admin/console/signin", nil, nil)
		checkHeaders("the sign-in page", resp.Header)
		token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
		if token == nil {
			t.Fatalf("no token in the sign-in form:\n%s", body)
		}
		return do("POST", "/admin/console/signin", resp.Cookies(), url.Values{"csrf": {token[1]}, "username": {"ops"}, "key": {key}})
	}
	if resp, _ := do("POST", "/admin/console/signin", nil, url.Values{"username": {"ops"}, "key": {opsKey}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a sign-in without the form's token: %d", resp.StatusCode)
	}
	resp, _ := signIn(opsKey)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/" {
		t.Fatalf("sign in: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, line := range resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(line, "pads_console=") {
			t.Logf("Set-Cookie: pads_console=…%s", line[strings.Index(line, ";"):])
			for _, attr := range []string{"Path=/admin/", "Max-Age=3600", "HttpOnly", "SameSite=Strict"} {
				if !strings.Contains(line, "; "+attr) {
					t.Errorf("the session cookie lacks %s: %s", attr, line)
				}
			}
		}
	}
	for _, c := range resp.Cookies() {
		if c.Name == "pads_console" {
			session = c
		}
	}
	if session == nil || len(session.Value) < 40 {
		t.Fatalf("no session cookie: %v", resp.Cookies())
	}
	cookies := []*http.Cookie{session}
	resp, body := do("GET", "/admin/", cookies, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, "Overview") {
		t.Fatalf("the overview: %d\n%s", resp.StatusCode, body)
	}
	checkHeaders("the overview", resp.Header)
	if resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	t.Logf("Content-Security-Policy: %s", resp.Header.Get("Content-Security-Policy"))
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)[1]

	// A form post without the session's token, or with another, is refused.
	for _, form := range []url.Values{{}, {"csrf": {"not-the-token"}}, {"csrf": {csrf + "x"}}} {
		if resp, _ := do("POST", "/admin/console/deliveries/1/replay", cookies, form); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a replay with csrf %q: %d", form.Get("csrf"), resp.StatusCode)
		}
		if resp, _ := do("POST", "/admin/console/signout", cookies, form); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a sign-out with csrf %q: %d", form.Get("csrf"), resp.StatusCode)
		}
	}
	if resp, _ := do("POST", "/admin/console/deliveries/9/replay", cookies, url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a replay with the token: %d", resp.StatusCode)
	}
	if resp, body := do("GET", "/admin/console/static/console.css", nil, nil); resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") || !strings.Contains(body, "pads") {
		t.Errorf("the stylesheet: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := do("GET", "/admin/console/deliveries?state=lost", cookies, nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown state: %d", resp.StatusCode)
	}

	// Signing out ends the session on the server: its cookie opens nothing.
	if resp, _ := do("POST", "/admin/console/signout", cookies, url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: %d", resp.StatusCode)
	}
	if resp, _ := do("GET", "/admin/", cookies, nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the overview after signing out: %d", resp.StatusCode)
	}

	// Failed sign-ins are throttled like the API's logins (10 by default).
	for i := range 10 {
		if resp, _ := signIn("wrong-key"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong key %d: %d", i, resp.StatusCode)
		}
	}
	if resp, _ := signIn(opsKey); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("after 10 failures: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if r := s.do("POST", "/admin/authenticate", jsonHeader, `{"username":"ops","password":"`+opsKey+`"}`); r.status != http.StatusTooManyRequests {
		t.Fatalf("the admin API shares the throttle: %d", r.status)
	}
}
