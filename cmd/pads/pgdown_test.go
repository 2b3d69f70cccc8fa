package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// While its PostgreSQL server is down, pads answers saves 503 with the
// contract's JSON error and a Retry-After, and /readyz fails; once the
// server is back, pads serves again without a restart, nothing answered
// 2xx is lost, and a delivery waiting for its retry goes on.
func TestPostgreSQLDownAndBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a PostgreSQL server and a real process")
	}
	t.Parallel()
	srv := pgtest.StartServer(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE pads"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	dbURL := strings.Replace(srv.URL, "/postgres?", "/pads?", 1)

	// The first attempt of each delivery fails; the retry, 2 s later, lands.
	var mu sync.Mutex
	tried := map[string]bool{}
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		id := r.Header.Get("webhook-id")
		if !tried[id] {
			tried[id] = true
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	dir := t.TempDir()
	path := writeConfig(t, dir, fmt.Sprintf(`listen: 127.0.0.1:0
dataDir: %s
database: %s
secrets:
  jwtKeys: [{id: k1, key: %q}]
  encryptionKeys: [{id: e1, key: %q}]
destinations: {allowPrivateNetworks: true, allowPlainHTTP: true}
clients:
  - id: acme
    apiKeys: [{key: %s}]
    funnels: [{id: acme-main}]
    destinations:
      - type: webhook
        url: %s
        retry: {attempts: 10, initialDelay: 2s, multiplier: 1}
`, filepath.Join(dir, "data"), dbURL, config.NewSecret(), config.NewSecret(), acmeKey, rc.srv.URL))
	p := startProc(t, dir, "--config", path)
	tok := procToken(t, p.base, "acme", acmeKey)
	save := func(email string) response {
		return doHTTP(t, p.base, "POST", "/patient/savePatientData?dataType=non-sensitive",
			map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
			fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":%q,"formCompleted":true}`, email))
	}
	if r := save("before@example.com"); r.status != 201 {
		t.Fatalf("save before the outage: %d %s", r.status, r.raw)
	}
	rc.wait(t, 1, 10*time.Second) // its first attempt failed; the retry waits
	// The attempt is recorded before the outage: an attempt whose record
	// is lost waits for its lease (minutes), not for its retry.
	waitFor(t, func() bool { return strings.Contains(cli(t, "deliveries", "show", "1", "--config", path), "http_5xx") })

	srv.Stop()
	r := save("during@example.com")
	if r.status != 503 || r.body["message"] != "Service unavailable" || r.body["requestId"] == nil || r.header.Get("Retry-After") == "" {
		t.Fatalf("save while the database is down: %d %v %s", r.status, r.header, r.raw)
	}
	if r := doHTTP(t, p.base, "GET", "/readyz", nil, ""); r.status != 503 {
		t.Fatalf("/readyz while the database is down: %d", r.status)
	}

	srv.Start()
	waitFor(t, func() bool { return doHTTP(t, p.base, "GET", "/readyz", nil, "").status == 200 })
	if r := save("after@example.com"); r.status != 201 {
		t.Fatalf("save after the database is back: %d %s", r.status, r.raw)
	}
	// The retry of the first save's delivery, and the second save's two
	// attempts: every save answered 2xx delivered.
	got := rc.wait(t, 4, 20*time.Second)
	delivered := map[string]bool{}
	for _, g := range got {
		if strings.Contains(string(g.body), "before@example.com") || strings.Contains(string(g.body), "after@example.com") {
			delivered[g.header.Get("webhook-id")] = true
		}
	}
	if len(delivered) != 2 {
		t.Fatalf("deliveries received after the outage: %d, want both saves'", len(delivered))
	}
	if out := p.logs.String(); strings.Contains(out, "Unmistakable") || !strings.Contains(out, "database unavailable") {
		t.Fatalf("the outage is logged as such:\n%s", out)
	}
}
