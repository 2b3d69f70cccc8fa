package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/httpapi"
	"github.com/pads-dev/pads/internal/metrics"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/save"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/snapshot"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
)

// Keys of the test clients: acme subscribes to full, globex to
// non-sensitive.
const (
	acmeKey   = "acme-key-0123456789abcdef"
	globexKey = "globex-key-0123456789abcdef"
)

// ada is a valid save's required fields, for acme.
const ada = `"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com"`

func testConfig() string {
	return fmt.Sprintf(`serviceName: pads
limits:
  loginFailures: 3
  loginWindow: 1m
clients:
  - id: acme
    apiKeys:
      - key: %s
    subscription: full
    funnels:
      - id: acme-main
      - id: acme-staging
        environment: staging
  - id: globex
    apiKeys:
      - sha256: %x
    funnels:
      - id: globex-main
`, acmeKey, config.DigestAPIKey(globexKey))
}

// jwtKey signs the test server's tokens.
var jwtKey = auth.Key{ID: "k1", Secret: bytes.Repeat([]byte("j"), 32)}

// api is the whole API (NewServer) over real SQLite in a temp dir, on an
// httptest server; its clock can be moved (skew).
type api struct {
	t      *testing.T
	base   string
	logs   *syncBuffer
	tokens *auth.Tokens
	mu     sync.Mutex
	offset time.Duration
}

func (a *api) now() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return time.Now().Add(a.offset)
}

// skew moves the server's clock by d from now on.
func (a *api) skew(d time.Duration) {
	a.mu.Lock()
	a.offset = d
	a.mu.Unlock()
}

func newAPI(t *testing.T) *api {
	t.Helper()
	cfg, err := config.Parse([]byte(testConfig()), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	a := &api{t: t, logs: &syncBuffer{}}
	logger := slog.New(slog.NewJSONHandler(a.logs, nil))
	a.tokens, err = auth.NewTokens(cfg.ServiceName, []auth.Key{jwtKey}, a.now)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := seal.NewKeyring([]seal.Key{{ID: "e1", Secret: bytes.Repeat([]byte("e"), 32)}})
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "pads.db"),
		store.Config{Keys: keys, Logger: logger, ObserveBatch: m.ObserveSaveBatch, ObserveCommit: m.ObserveCommit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	live := func() *config.Config { return cfg }
	saves := save.New(save.Deps{Store: st, Config: live, Snapshot: snapshot.Take, Now: a.now})
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{
		Logger: logger, Config: live, Tokens: a.tokens, Throttle: auth.NewThrottle(cfg.Limits.LoginFailures, cfg.Limits.LoginWindow.D(), a.now),
		Store: st, Saves: saves, Operator: operator.New(st, a.now, func() {}), Metrics: m, Now: a.now, ServiceName: cfg.ServiceName,
	}))
	t.Cleanup(srv.Close)
	a.base = srv.URL
	return a
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// do makes one request; header values replace the client's defaults.
func (a *api) do(method, path string, header map[string]string, body string) response {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	json.Unmarshal(raw, &r.body)
	return r
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

// token authenticates client with key for audience ("storage", "smile").
func (a *api) token(client, key, audience string) string {
	a.t.Helper()
	path := "/storage/authenticate"
	if audience == "smile" {
		path = "/padsSmile/authenticate"
	}
	r := a.do("POST", path, jsonHeader, fmt.Sprintf(`{"username":%q,"password":%q}`, client, key))
	if r.status != 200 {
		a.t.Fatalf("authenticate %s: %d %s", client, r.status, r.raw)
	}
	return r.body["token"].(string)
}

func (a *api) save(tok, dataType, body string) response {
	a.t.Helper()
	return a.do("POST", "/patient/savePatientData?dataType="+dataType,
		map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}, body)
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
