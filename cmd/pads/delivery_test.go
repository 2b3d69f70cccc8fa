package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func completeForm(t *testing.T, s *server, tok, funnel, email string) string {
	t.Helper()
	r := s.save(tok, "non-sensitive", fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":%q,"email":%q,"firstName":"Ada","formCompleted":true}`, funnel, email))
	if r.status != 201 && r.status != 200 {
		t.Fatalf("save: %d %s", r.status, r.raw)
	}
	return r.body["patientUUID"].(string)
}

func completeAssessment(t *testing.T, s *server, tok, funnel, email string) {
	t.Helper()
	r := s.save(tok, "sensitive", fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":%q,"email":%q,"heartRateBpm":62,
		"systolicBloodPressureMmhg":118,"diastolicBloodPressureMmhg":76,"oxygen":98,"breathingRateBpm":14,"rmssd":45,"assessmentCompleted":true}`, funnel, email))
	if r.status != 200 && r.status != 201 {
		t.Fatalf("save: %d %s", r.status, r.raw)
	}
}

func TestWebhookCarriesEveryHeaderAndASignatureTheOfficialLibraryAccepts(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	path := deliveryConfig(t, webhookDest(rc.srv.URL+"/pads", `        auth:
          apiKey: {header: X-API-Key, value: outbound-key}
          hmac:
            secret: `+whsec1+`
            previousSecrets: [`+whsec2+`]
        headers: {X-Acme-Tenant: main}
`), "")
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	uuid := completeForm(t, s, tok, "acme-main", "ada@example.com")
	completeAssessment(t, s, tok, "acme-main", "ada@example.com")
	got := rc.wait(t, 2, 10*time.Second)

	for i, want := range []string{"non-sensitive", "sensitive"} {
		var r received
		for _, g := range got {
			if g.header.Get("X-Pads-Event") == want {
				r = g
			}
		}
		if r.header == nil {
			t.Fatalf("no %s delivery among %d", want, len(got))
		}
		h := r.header
		checks := map[string]string{"Content-Type": "application/json", "User-Agent": "pads/" + version, "X-Pads-Attempt": "1",
			"X-Api-Key": "outbound-key", "X-Acme-Tenant": "main"}
		for k, v := range checks {
			if h.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", want, k, h.Get(k), v)
			}
		}
		if !strings.HasPrefix(h.Get("webhook-id"), "msg_") {
			t.Errorf("webhook-id = %q", h.Get("webhook-id"))
		}
		ts, _ := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
		if d := time.Since(time.Unix(ts, 0)); d < -2*time.Second || d > 30*time.Second {
			t.Errorf("webhook-timestamp %d is %v away", ts, d)
		}
		if sigs := strings.Fields(h.Get("webhook-signature")); len(sigs) != 2 || h.Get("X-Pads-Signature") != h.Get("webhook-signature") {
			t.Errorf("signatures %q / %q", h.Get("webhook-signature"), h.Get("X-Pads-Signature"))
		}
		for _, secret := range []string{whsec1, whsec2} {
			wh, _ := standardwebhooks.NewWebhook(secret)
			if err := wh.Verify(r.body, h); err != nil {
				t.Errorf("%s: the official library refuses the signature: %v", want, err)
			}
		}
		var body map[string]any
		if err := json.Unmarshal(r.body, &body); err != nil || body["uuid"] != uuid || body["email"] != "ada@example.com" {
			t.Fatalf("%s body %s", want, r.body)
		}
		_, hasHealth := body["healthCreditScore"]
		if hasHealth != (i == 1) {
			t.Errorf("%s payload: healthCreditScore present = %v", want, hasHealth)
		}
		writeForNode(t, want, r)
	}
}

// writeForNode saves a delivery for the npm standardwebhooks check.
func writeForNode(t *testing.T, name string, r received) {
	dir := os.Getenv("PADS_NODE_VECTORS")
	if dir == "" {
		return
	}
	v, _ := json.Marshal(map[string]any{"secret": whsec1, "body": string(r.body), "headers": map[string]string{
		"webhook-id": r.header.Get("webhook-id"), "webhook-timestamp": r.header.Get("webhook-timestamp"),
		"webhook-signature": r.header.Get("webhook-signature")}})
	os.WriteFile(filepath.Join(dir, name+".json"), v, 0o644)
}

// TestNodeStandardWebhooksAcceptsOurSignatures runs the npm standardwebhooks
// package (installed by .ci/run into test/node) over real deliveries.
func TestNodeStandardWebhooksAcceptsOurSignatures(t *testing.T) {
	if _, err := os.Stat("../../test/node/node_modules/standardwebhooks"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must install test/node (npm ci --prefix test/node)")
		}
		t.Skip("npm standardwebhooks not installed: npm ci --prefix test/node")
	}
	dir := t.TempDir()
	rc := newReceiver(t, nil)
	s := startServerAt(t, deliveryConfig(t, webhookDest(rc.srv.URL, "        auth:\n          hmac: {secret: "+whsec1+"}\n"), ""))
	tok := s.token("acme", acmeKey, "storage")
	completeForm(t, s, tok, "acme-main", "ada@example.com")
	completeAssessment(t, s, tok, "acme-main", "ada@example.com")
	for _, r := range rc.wait(t, 2, 10*time.Second) {
		t.Setenv("PADS_NODE_VECTORS", dir)
		writeForNode(t, r.header.Get("X-Pads-Event"), r)
	}
	out, err := exec.Command("node", "../../test/node/verify.mjs", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "verified 2") {
		t.Fatalf("node verify: %v\n%s", err, out)
	}
}

func TestEachOutboundAuthMethod(t *testing.T) {
	t.Parallel()
	var fetches atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		id, secret, _ := r.BasicAuth()
		if r.Form.Get("grant_type") != "client_credentials" || id != "pads-client" || secret != "s3cret" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		n := fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":3600}`, n)
	}))
	defer tokenSrv.Close()
	var seen atomic.Value
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		seen.Store(a)
		if a == "Bearer tok-1" { // the first token was revoked early
			w.WriteHeader(http.StatusUnauthorized)
		}
	})
	tests := []struct {
		name, auth, want string
		requests         int // the oauth2 attempt is a 401, then a retry with a fresh token
	}{
		{"bearer", "bearer: {token: t0ken}", "Bearer t0ken", 1},
		{"basic", "basic: {username: pads, password: pw}", "Basic cGFkczpwdw==", 1},
		{"oauth2, refreshed once after a 401", "oauth2: {tokenURL: " + tokenSrv.URL + ", clientID: pads-client, clientSecret: s3cret, scopes: [results]}", "Bearer tok-2", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rc.all())
			s := startServerAt(t, deliveryConfig(t, webhookDest(rc.srv.URL, "        auth:\n          "+tt.auth+"\n"), ""))
			completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "a@example.com")
			got := rc.wait(t, before+tt.requests, 10*time.Second)
			if a := got[len(got)-1].header.Get("Authorization"); a != tt.want {
				t.Fatalf("Authorization = %q, want %q", a, tt.want)
			}
		})
	}
	if fetches.Load() != 2 {
		t.Fatalf("token fetched %d times, want 2 (first, then after the 401)", fetches.Load())
	}
}

func TestOAuth2FailureNeverSendsUnauthenticated(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 500) }))
	defer dead.Close()
	path := deliveryConfig(t, webhookDest(rc.srv.URL, "        auth:\n          oauth2: {tokenURL: "+dead.URL+", clientID: c, clientSecret: s}\n        retry: {attempts: 1}\n"), "")
	s := startServerAt(t, path)
	completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "a@example.com")
	out := waitForDelivery(t, path, "failed")
	if !strings.Contains(out, "auth_failed") {
		t.Fatalf("delivery:\n%s", out)
	}
	if n := len(rc.all()); n != 0 {
		t.Fatalf("%d requests went out without credentials", n)
	}
}

// waitForDelivery polls `pads deliveries show 1` until the delivery is in
// state, and returns what it printed.
func waitForDelivery(t *testing.T, configPath, state string) string {
	t.Helper()
	var out string
	waitFor(t, func() bool {
		out = cli(t, "deliveries", "show", "1", "--config", configPath)
		return strings.Contains(out, "state:       "+state)
	})
	return out
}

func cli(t *testing.T, args ...string) string {
	t.Helper()
	var out strings.Builder
	if err := run(context.Background(), args, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatalf("pads %v: %v", args, err)
	}
	return out.String()
}

func TestRetriesUntilSuccessOrTheLastAttempt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		statuses []int
		attempts int
		state    string
	}{
		{"500 500 500: exactly three attempts, then failed", []int{500, 500, 500, 200}, 3, "failed"},
		{"500 200: two attempts, delivered", []int{500, 200}, 2, "delivered"},
		{"302: a failure, not followed", []int{302, 302}, 2, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if tt.statuses[n] == 302 {
					w.Header().Set("Location", "/elsewhere")
				}
				w.WriteHeader(tt.statuses[n])
			})
			retry := fmt.Sprintf("        retry: {attempts: %d, initialDelay: 100ms, multiplier: 3}\n", min(tt.attempts, 3))
			if tt.state == "failed" {
				retry = fmt.Sprintf("        retry: {attempts: %d, initialDelay: 100ms, multiplier: 3}\n", tt.attempts)
			}
			path := deliveryConfig(t, webhookDest(rc.srv.URL+"/hook", retry), "")
			s := startServerAt(t, path)
			completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "a@example.com")
			out := waitForDelivery(t, path, tt.state)
			got := rc.all()
			if len(got) != tt.attempts {
				t.Fatalf("%d attempts reached the receiver, want %d\n%s", len(got), tt.attempts, out)
			}
			for i, r := range got {
				if r.header.Get("webhook-id") != got[0].header.Get("webhook-id") || r.header.Get("X-Pads-Attempt") != strconv.Itoa(i+1) {
					t.Errorf("attempt %d: id %s attempt %s", i+1, r.header.Get("webhook-id"), r.header.Get("X-Pads-Attempt"))
				}
				if i > 0 && r.header.Get("webhook-timestamp") < got[i-1].header.Get("webhook-timestamp") {
					t.Errorf("timestamps go back")
				}
			}
			if len(got) == 3 {
				gap1, gap2 := got[1].at.Sub(got[0].at), got[2].at.Sub(got[1].at)
				// Lower bounds only: a loaded machine delays an attempt
				// (a first gap of 870 ms, a second of 580 ms, seen), never
				// hastens one.
				if gap1 < 100*time.Millisecond || gap2 < 300*time.Millisecond {
					t.Errorf("gaps %v then %v: want >=100ms, then >=300ms", gap1, gap2)
				}
			}
			if strings.Contains(tt.name, "302") && !strings.Contains(out, "http_3xx") {
				t.Errorf("3xx attempts must say so:\n%s", out)
			}
		})
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 0 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	})
	path := deliveryConfig(t, webhookDest(rc.srv.URL, "        retry: {attempts: 2, initialDelay: 10ms}\n"), "")
	s := startServerAt(t, path)
	completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "a@example.com")
	got := rc.wait(t, 2, 10*time.Second)
	if gap := got[1].at.Sub(got[0].at); gap < time.Second {
		t.Fatalf("retried after %v despite Retry-After: 1", gap)
	}
}

func TestAttemptTimesOutAtTheDestinationTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	path := deliveryConfig(t, webhookDest(rc.srv.URL, "        timeout: 300ms\n        retry: {attempts: 1}\n"), "")
	s := startServerAt(t, path)
	completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "a@example.com")
	if out := waitForDelivery(t, path, "failed"); !strings.Contains(out, "timeout") {
		t.Fatalf("delivery:\n%s", out)
	}
}

func TestAHangingDestinationDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hanging := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	// Behind the hanging attempts the healthy one would start only once
	// one of them ended (at its 30 s timeout): it must arrive while every
	// one still hangs, however slow the machine.
	var endedBefore atomic.Int64
	healthy := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		endedBefore.Store(hanging.answered.Load())
	})
	s := startServerAt(t, deliveryConfig(t, webhookDest(hanging.srv.URL, ""), webhookDest(healthy.srv.URL, "")))
	t.Cleanup(func() { close(release) }) // runs before pads' own cleanup: its shutdown waits for attempts
	acme := s.token("acme", acmeKey, "storage")
	for i := range 60 { // more than one destination's share of the workers
		completeForm(t, s, acme, "acme-main", fmt.Sprintf("p%d@example.com", i))
	}
	hanging.waitReceived(t, 32, 10*time.Second)
	completeForm(t, s, s.token("globex", globexKey, "storage"), "globex-main", "g@example.com")
	healthy.wait(t, 1, 20*time.Second)
	if n := endedBefore.Load(); n != 0 {
		t.Fatalf("the healthy destination was sent its delivery after %d attempts to the hanging one had ended", n)
	}
}

func TestRoutingByEnvironmentAndSubscription(t *testing.T) {
	t.Parallel()
	prod, staging, globex := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
	acmeDests := webhookDest(prod.srv.URL, "") + webhookDest(staging.srv.URL, "        environment: staging\n")
	path := deliveryConfig(t, acmeDests, webhookDest(globex.srv.URL, ""))
	s := startServerAt(t, path)
	acme := s.token("acme", acmeKey, "storage")
	completeForm(t, s, acme, "acme-main", "p@example.com")
	completeForm(t, s, acme, "acme-staging", "s@example.com")
	g := s.token("globex", globexKey, "storage")
	completeForm(t, s, g, "globex-main", "g@example.com")
	completeAssessment(t, s, g, "globex-main", "g@example.com")
	completeAssessment(t, s, acme, "acme-main", "p@example.com")

	prodGot := prod.wait(t, 2, 10*time.Second)
	stagingGot := staging.wait(t, 1, 10*time.Second)
	globexGot := globex.wait(t, 1, 10*time.Second)
	// Every delivery the saves made is recorded: no request is still to come.
	waitFor(t, func() bool {
		out := cli(t, "deliveries", "list", "--config", path)
		return strings.Count(out, " delivered ") == 4 && !strings.Contains(out, " pending ")
	})
	for _, r := range append(prod.all(), staging.all()...) {
		var body map[string]any
		json.Unmarshal(r.body, &body)
		if body["email"] == "g@example.com" {
			t.Fatal("globex data reached acme")
		}
	}
	if len(prod.all()) != 2 || len(staging.all()) != 1 || len(globex.all()) != 1 {
		t.Fatalf("prod %d (want 2), staging %d (want 1), globex %d (want 1)", len(prodGot), len(stagingGot), len(globexGot))
	}
	var body map[string]any
	json.Unmarshal(staging.all()[0].body, &body)
	if body["email"] != "s@example.com" || body["funnelID"] != "acme-staging" {
		t.Fatalf("staging got %s", staging.all()[0].body)
	}
	if ev := globex.all()[0].header.Get("X-Pads-Event"); ev != "non-sensitive" {
		t.Fatalf("a non-sensitive subscriber received %s", ev)
	}
}

func TestReplayResendsAFailedDeliveryUnderTheSameID(t *testing.T) {
	t.Parallel()
	var healthy atomic.Bool
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if !healthy.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	path := deliveryConfig(t, webhookDest(rc.srv.URL, "        retry: {attempts: 1}\n"), "")
	s := startServerAt(t, path)
	completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "a@example.com")
	waitForDelivery(t, path, "failed")
	if out := cli(t, "deliveries", "list", "--status", "failed", "--config", path); !strings.Contains(out, "http_5xx") {
		t.Fatalf("list --status failed:\n%s", out)
	}
	healthy.Store(true)
	if out := cli(t, "deliveries", "replay", "1", "--config", path); !strings.Contains(out, "replayed 1") {
		t.Fatalf("replay: %s", out)
	}
	got := rc.wait(t, 2, 10*time.Second)
	if got[1].header.Get("webhook-id") != got[0].header.Get("webhook-id") || got[1].header.Get("X-Pads-Attempt") != "1" {
		t.Fatalf("replay: id %s vs %s, attempt %s", got[1].header.Get("webhook-id"), got[0].header.Get("webhook-id"), got[1].header.Get("X-Pads-Attempt"))
	}
	out := waitForDelivery(t, path, "delivered")
	if !strings.Contains(out, "series:      2") {
		t.Fatalf("show:\n%s", out)
	}
}

func TestShutdownLetsAnAttemptUnderWayFinish(t *testing.T) {
	t.Parallel()
	inFlight, answer := make(chan struct{}, 1), make(chan struct{})
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		inFlight <- struct{}{}
		<-answer // still answering when pads is told to stop
	})
	path := deliveryConfig(t, webhookDest(rc.srv.URL, ""), "")
	s := startServerAt(t, path)
	completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "a@example.com")
	<-inFlight
	stopped := make(chan struct{})
	go func() { s.stop(); close(stopped) }() // what SIGTERM does: stop claiming, let the attempt finish, exit
	waitFor(t, func() bool { return strings.Contains(s.logs.String(), "shutting down") })
	close(answer)
	<-stopped
	out := cli(t, "deliveries", "show", "1", "--config", path)
	if !strings.Contains(out, "state:       delivered") {
		t.Fatalf("after shutdown the attempt under way must be recorded as delivered:\n%s", out)
	}
}
