package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestConsoleReadsWellAt360Pixels opens the overview, the deliveries and
// the audit log in a 360 px wide Chromium (a small phone): nothing is
// wider than the screen but the tables' own scrolling boxes, and the
// header's sign-out button can be seen; on the overview, every
// destination's Pause, Resume and Send test button is on the screen. The screenshots are kept in
// PADS_SCREENSHOT_DIR for a person to look at.
func TestConsoleReadsWellAt360Pixels(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	failing := newReceiver(t, func(int, http.ResponseWriter, *http.Request) {})
	calm := newReceiver(t, nil)
	path := consoleConfig(t, failing.srv.URL, calm.srv.URL)
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	completeForm(t, s, tok, "acme-main", "ada@example.com")
	calm.wait(t, 0, 0)
	b.run(t, "narrow the window", chromedp.EmulateViewport(360, 740))
	b.run(t, "sign in", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#signin")),
		chromedp.SendKeys(chromedp.CSS("#username"), "ops"), chromedp.SendKeys(chromedp.CSS("#key"), opsKey),
		chromedp.Click(chromedp.CSS("#signin")), chromedp.WaitVisible(chromedp.CSS("#trouble-count")))
	// One destination paused, so the overview has a Resume button too.
	b.run(t, "pause globex at 360 px", chromedp.SendKeys(chromedp.CSS("#reason-globex-results"), "new certificate"),
		chromedp.Click(chromedp.CSS("#pause-globex-results")), chromedp.WaitVisible(chromedp.CSS("#paused-globex-results")))
	for _, p := range []struct{ name, path, sel string }{
		{"narrow-overview", "/admin/", "#trouble-count"},
		{"narrow-deliveries", "/admin/console/deliveries", "table.deliveries"},
		{"narrow-audit", "/admin/console/audit", "table.audit"},
	} {
		b.run(t, "open "+p.path, chromedp.Navigate(s.base+p.path), chromedp.WaitVisible(chromedp.CSS(p.sel)))
		b.screenshot(t, p.name)
		if p.path == "/admin/" {
			destinationButtonsOnScreen(t, b, 360)
		}
		width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int]("document.documentElement.scrollWidth"))
		if err != nil {
			t.Fatal(err)
		}
		if width > 360 {
			t.Errorf("%s is %d px wide in a 360 px window", p.path, width)
		}
		// The sign-out button is on the screen, and its text does not
		// melt into what is behind it.
		seen, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
			const b = document.querySelector("#signout"), r = b.getBoundingClientRect();
			if (r.right > innerWidth || r.left < 0) return "off the screen";
			const paint = e => getComputedStyle(e).backgroundColor;
			let bg = paint(b);
			if (bg === "rgba(0, 0, 0, 0)") {
				const under = document.elementsFromPoint(r.left + r.width/2, r.top + r.height/2).find(e => e !== b && paint(e) !== "rgba(0, 0, 0, 0)");
				bg = under ? paint(under) : paint(document.documentElement);
			}
			return getComputedStyle(b).color + " on " + bg;
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if seen == "off the screen" || seen == "rgb(255, 255, 255) on rgb(255, 255, 255)" || seen == "rgb(255, 255, 255) on rgb(245, 246, 248)" {
			t.Errorf("%s: the sign-out button is %s", p.path, seen)
		}
	}
}

// destinationButtonsOnScreen fails the test unless each destination on the
// overview has its buttons (Pause or Resume, and Send test) wholly inside a
// window width px wide, and at least one Pause and one Resume were seen.
func destinationButtonsOnScreen(t *testing.T, b *browser, width int) {
	t.Helper()
	type button struct {
		ID          string
		Left, Right float64
	}
	buttons, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]button](`[...document.querySelectorAll(
		"table.destinations button[id^='pause-'], table.destinations button[id^='resume-'], table.destinations button[id^='test-']")].map(e => {
		const r = e.getBoundingClientRect();
		return {ID: e.id, Left: r.left, Right: r.right};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, bt := range buttons {
		seen[strings.SplitN(bt.ID, "-", 2)[0]]++
		if bt.Left < 0 || bt.Right > float64(width) {
			t.Errorf("button %s spans %.0f to %.0f px, outside the %d px window", bt.ID, bt.Left, bt.Right, width)
		}
	}
	for _, kind := range []string{"pause", "resume", "test"} {
		if seen[kind] == 0 {
			t.Errorf("no %s button on the overview (saw %v)", kind, seen)
		}
	}
}
