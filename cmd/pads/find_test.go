package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var msgIDRE = regexp.MustCompile(`msg_[0-9a-f]{32}`)

// TestFindDeliveriesByPatientMessageAndDestination, on both stores: pads
// deliveries list and the admin API find a patient's deliveries by uuid,
// one delivery by its message id, and a destination's by its id; the
// audit log names the searched patient only by a keyed reference.
func TestFindDeliveriesByPatientMessageAndDestination(t *testing.T) {
	onStores(t, func(t *testing.T, useStore func(string)) {
		rc, other := newReceiver(t, nil), newReceiver(t, nil)
		path := deliveryConfig(t, "      - id: clinic\n        type: webhook\n        url: "+rc.srv.URL+"\n"+
			"      - id: crm\n        type: webhook\n        url: "+other.srv.URL+"\n        events: [non-sensitive]\n", "")
		text := strings.Replace(readFile(t, path), "clients:", fmt.Sprintf("admins:\n  - id: ops\n    apiKeys: [{key: %s}]\nclients:", opsKey), 1)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		useStore(path)
		s := startServerAt(t, path)
		tok := s.token("acme", acmeKey, "storage")
		ada := completeForm(t, s, tok, "acme-main", "ada@example.com")
		completeAssessment(t, s, tok, "acme-main", "ada@example.com")
		grace := completeForm(t, s, tok, "acme-main", "grace@example.com")
		rc.wait(t, 3, 10*time.Second)

		byPatient := cli(t, "deliveries", "list", "--patient", ada, "--config", path)
		if strings.Count(byPatient, "\n") != 4 || strings.Contains(byPatient, grace) {
			t.Fatalf("ada's deliveries (3, of 2 destinations):\n%s", byPatient)
		}
		msg := msgIDRE.FindString(byPatient)
		byMessage := cli(t, "deliveries", "list", "--message", msg, "--config", path)
		if strings.Count(byMessage, "\n") != 2 || !strings.Contains(byMessage, msg) {
			t.Fatalf("the delivery of %s:\n%s", msg, byMessage)
		}
		byDest := cli(t, "deliveries", "list", "--destination", "crm", "--client", "acme", "--config", path)
		if strings.Count(byDest, "\n") != 3 || strings.Contains(byDest, "clinic") {
			t.Fatalf("crm's deliveries:\n%s", byDest)
		}
		if both := cli(t, "deliveries", "list", "--patient", ada, "--destination", "clinic", "--config", path); strings.Count(both, "\n") != 3 {
			t.Fatalf("ada's deliveries to clinic:\n%s", both)
		}
		if _, err := runCLI("deliveries", "list", "--patient", "ada", "--config", path); err == nil || !strings.Contains(err.Error(), "UUID") {
			t.Fatalf("a patient that is not a uuid: %v", err)
		}

		adminTok := s.do("POST", "/admin/authenticate", jsonHeader, `{"username":"ops","password":"`+opsKey+`"}`).body["token"].(string)
		r := s.do("GET", "/admin/deliveries?patient="+ada+"&destination=clinic&client=acme", map[string]string{"Authorization": "Bearer " + adminTok}, "")
		if r.status != 200 || len(r.body["deliveries"].([]any)) != 2 {
			t.Fatalf("admin API by patient: %d %s", r.status, r.raw)
		}
		audit := cli(t, "audit", "--limit", "1000", "--config", path)
		if strings.Contains(audit, ada) || !strings.Contains(audit, "patient=patient:") {
			t.Fatalf("the audit log must name the searched patient by a keyed reference only:\n%s", audit)
		}
	})
}

// TestConsoleFindsAPatientsDeliveries types a patient's uuid, then a
// message id, in the deliveries page's search box in Chromium.
func TestConsoleFindsAPatientsDeliveries(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	rc, calm := newReceiver(t, nil), newReceiver(t, nil)
	path := consoleConfig(t, rc.srv.URL, calm.srv.URL)
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	ada := completeForm(t, s, tok, "acme-main", "ada@example.com")
	completeForm(t, s, tok, "acme-main", "grace@example.com")
	rc.wait(t, 2, 10*time.Second)
	b.run(t, "sign in", chromedp.Navigate(s.base+"/admin/console/deliveries"), chromedp.WaitVisible(chromedp.CSS("#signin")),
		chromedp.SendKeys(chromedp.CSS("#username"), "ops"), chromedp.SendKeys(chromedp.CSS("#key"), opsKey),
		chromedp.Click(chromedp.CSS("#signin")), chromedp.WaitVisible(chromedp.CSS("table.deliveries")))
	if n := b.count(t, "table.deliveries tbody tr"); n != 2 {
		t.Fatalf("%d deliveries before the search", n)
	}
	b.run(t, "search a patient", chromedp.SendKeys(chromedp.CSS("#q"), ada), chromedp.Click(chromedp.CSS("#apply")))
	waitFor(t, func() bool { return strings.Contains(b.location(t), "q="+ada) })
	b.run(t, "the results", chromedp.WaitVisible(chromedp.CSS("table.deliveries")))
	if n := b.count(t, "table.deliveries tbody tr"); n != 1 {
		t.Fatalf("%d deliveries of one patient, want 1 (%s)", n, b.location(t))
	}
	b.screenshot(t, "deliveries-search")
	show := cli(t, "deliveries", "show", "1", "--config", path)
	msg := msgIDRE.FindString(show)
	b.run(t, "search a message id", chromedp.SetValue(chromedp.CSS("#q"), msg), chromedp.Click(chromedp.CSS("#apply")))
	waitFor(t, func() bool { return strings.Contains(b.location(t), "q="+msg) })
	b.run(t, "the results", chromedp.WaitVisible(chromedp.CSS("table.deliveries")))
	if n := b.count(t, "table.deliveries tbody tr"); n != 1 || !strings.Contains(b.text(t, "table.deliveries"), "main-hook") {
		t.Fatalf("%d deliveries of one message id", n)
	}
	if audit := cli(t, "audit", "--config", path); strings.Contains(audit, ada) {
		t.Fatalf("the audit log names the patient in clear:\n%s", audit)
	}
}
