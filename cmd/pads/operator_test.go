package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The CLI and the admin API are front ends of one operator service: the
// same replay does the same thing and leaves the same audit entry.
func TestCLIAndAdminAPIReplayTheSameWayAndAuditTheSameAction(t *testing.T) {
	t.Parallel()
	var healthy atomic.Bool
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if !healthy.Load() {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	path := deliveryConfig(t, webhookDest(rc.srv.URL, "        retry: {attempts: 1}\n"), "")
	text := strings.Replace(readFile(t, path), "clients:", fmt.Sprintf("admins:\n  - id: ops\n    apiKeys: [{key: %s}]\nclients:", opsKey), 1)
	path = writeConfig(t, t.TempDir(), text)
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	for _, email := range []string{"a@example.com", "b@example.com"} {
		completeForm(t, s, tok, "acme-main", email)
	}
	waitFor(t, func() bool {
		return strings.Count(cli(t, "deliveries", "list", "--status", "failed", "--config", path), "http_5xx") == 2
	})
	r := s.do("POST", "/admin/authenticate", jsonHeader, `{"username":"ops","password":"`+opsKey+`"}`)
	admin := map[string]string{"Authorization": "Bearer " + r.body["token"].(string), "Content-Type": "application/json"}

	// Replays of failed deliveries since a time: both take the two.
	if out := cli(t, "deliveries", "replay", "--failed", "--since", "1h", "--config", path); !strings.Contains(out, "replayed 2") {
		t.Fatalf("CLI replay --failed: %s", out)
	}
	waitFor(t, func() bool {
		return strings.Count(cli(t, "deliveries", "list", "--status", "failed", "--config", path), "http_5xx") == 2
	})
	if r := s.do("POST", "/admin/replays", admin, `{"since":"1h"}`); r.status != 200 || r.body["replayed"] != 2.0 {
		t.Fatalf("API replay failed: %d %s", r.status, r.raw)
	}
	// One delivery by id, once the receiver is back.
	waitFor(t, func() bool {
		return strings.Count(cli(t, "deliveries", "list", "--status", "failed", "--config", path), "http_5xx") == 2
	})
	healthy.Store(true)
	if out := cli(t, "deliveries", "replay", "1", "--config", path); !strings.Contains(out, "replayed 1") {
		t.Fatalf("CLI replay 1: %s", out)
	}
	if r := s.do("POST", "/admin/deliveries/2/replay", admin, ""); r.status != 200 || r.body["replayed"] != 1.0 {
		t.Fatalf("API replay 2: %d %s", r.status, r.raw)
	}
	waitFor(t, func() bool {
		return strings.Count(cli(t, "deliveries", "list", "--status", "delivered", "--config", path), "delivered") == 2
	})

	// The audit log, newest first: the same actions and target shapes.
	r = s.do("GET", "/admin/audit?limit=1000", admin, "")
	entries, _ := r.body["entries"].([]any)
	var got []string
	for _, e := range entries {
		m := e.(map[string]any)
		if strings.HasPrefix(m["action"].(string), "deliveries.replay") {
			actor := strings.SplitN(m["actor"].(string), ":", 2)[0]
			target := m["target"].(string)
			if strings.HasPrefix(target, "failed since ") {
				target = "failed since <time>" + target[strings.Index(target, " client="):]
			}
			got = append(got, actor+" "+m["action"].(string)+" "+target)
		}
	}
	want := []string{
		`admin deliveries.replay delivery:2`,
		`cli deliveries.replay delivery:1`,
		`admin deliveries.replay_failed failed since <time> client=""`,
		`cli deliveries.replay_failed failed since <time> client=""`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit entries of replays:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A delivery belongs to its destination by id: after the destination's URL
// is rotated and the config reloaded, a replay goes to the new URL.
func TestAReplayAfterAURLRotationReachesTheNewURL(t *testing.T) {
	if testing.Short() {
		t.Skip("signals a real process")
	}
	t.Parallel()
	old := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }) // (a 410 would pause the destination)
	rotated := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {})
	dest := func(url string) string {
		return fmt.Sprintf("      - id: main-hook\n        type: webhook\n        url: %s\n        retry: {attempts: 1}\n", url)
	}
	path := deliveryConfig(t, dest(old.srv.URL), "")
	dir := filepath.Dir(path)
	p := startProc(t, dir, "--config", path)
	tok := procToken(t, p.base, "acme", acmeKey)
	r := doHTTP(t, p.base, "POST", "/patient/savePatientData?dataType=non-sensitive",
		map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
		`{"assessmentType":"faceScan","funnelID":"acme-main","email":"a@example.com","formCompleted":true}`)
	if r.status != 201 {
		t.Fatalf("save: %d %s", r.status, r.raw)
	}
	first := old.wait(t, 1, 10*time.Second)[0]
	out := waitForDelivery(t, path, "failed")
	if !strings.Contains(out, "destination: main-hook") {
		t.Fatalf("show:\n%s", out)
	}

	writeConfig(t, dir, strings.Replace(readFile(t, path), old.srv.URL, rotated.srv.URL, 1))
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool { return strings.Contains(p.logs.String(), "config reloaded") })
	if out := cli(t, "deliveries", "replay", "1", "--config", path); !strings.Contains(out, "replayed 1") {
		t.Fatalf("replay: %s", out)
	}
	got := rotated.wait(t, 1, 10*time.Second)[0]
	if got.header.Get("webhook-id") != first.header.Get("webhook-id") {
		t.Fatalf("the replay's webhook-id %s, the first attempt's %s", got.header.Get("webhook-id"), first.header.Get("webhook-id"))
	}
	waitForDelivery(t, path, "delivered")
	if n := len(old.all()); n != 1 {
		t.Fatalf("the old URL got %d requests, want only the first attempt", n)
	}
}
