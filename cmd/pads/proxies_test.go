package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustedProxiesDecideTheAddressTheThrottleSees: behind a trusted
// proxy, failed logins count against the address the proxy says it got
// the request from (the right-most X-Forwarded-For entry that is not a
// trusted proxy), so one caller behind the proxy cannot lock out the
// others, and a client cannot escape by writing its own X-Forwarded-For.
// Without trustedProxies the header is ignored.
func TestTrustedProxiesDecideTheAddressTheThrottleSees(t *testing.T) {
	t.Parallel()
	login := func(s *server, xff, key string) response {
		t.Helper()
		return s.do("POST", "/storage/authenticate", map[string]string{"Content-Type": "application/json", "X-Forwarded-For": xff},
			fmt.Sprintf(`{"username":"acme","password":%q}`, key))
	}
	start := func(extra string) *server {
		dir := t.TempDir()
		path := filepath.Join(dir, "pads.yaml")
		if err := os.WriteFile(path, []byte(testConfig(filepath.Join(dir, "data"))+extra), 0o600); err != nil {
			t.Fatal(err)
		}
		return startServerAt(t, path)
	}

	behind := start("trustedProxies: [127.0.0.0/8, 10.0.0.0/8]\n") // loginFailures: 3
	for range 3 {
		if r := login(behind, "203.0.113.5, 10.1.2.3", "guess"); r.status != 401 {
			t.Fatalf("guess: %d", r.status)
		}
	}
	if r := login(behind, "203.0.113.5", acmeKey); r.status != 429 {
		t.Fatalf("the guesser's address after 3 failures: %d, want 429", r.status)
	}
	if r := login(behind, "198.51.100.7, 203.0.113.5", acmeKey); r.status != 429 {
		t.Fatalf("the guesser writing its own X-Forwarded-For: %d, want 429", r.status)
	}
	if r := login(behind, "203.0.113.6", acmeKey); r.status != 200 {
		t.Fatalf("another caller behind the same proxy: %d, want 200", r.status)
	}
	if !strings.Contains(behind.logs.String(), `"remote":"203.0.113.6"`) {
		t.Fatalf("the request log must name the address behind the proxy:\n%s", behind.logs.String())
	}

	direct := start("")
	for i := range 3 {
		login(direct, fmt.Sprintf("203.0.113.%d", i), "guess")
	}
	if r := login(direct, "198.51.100.9", acmeKey); r.status != 429 {
		t.Fatalf("without trustedProxies X-Forwarded-For must be ignored: %d, want 429", r.status)
	}
	if !strings.Contains(direct.logs.String(), `"remote":"127.0.0.1"`) || strings.Contains(direct.logs.String(), "203.0.113.") {
		t.Fatal("without trustedProxies the log names the TCP peer only")
	}
}
