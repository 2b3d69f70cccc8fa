package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
)

// Keys of the test clients: acme subscribes to full, globex to non-sensitive.
const (
	acmeKey   = "acme-key-0123456789abcdef"
	globexKey = "globex-key-0123456789abcdef"
)

// ada is a valid save's required fields, for acme.
const ada = `"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com"`

func testConfig(dataDir string) string {
	return fmt.Sprintf(`serviceName: pads
listen: 127.0.0.1:0
dataDir: %s
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
`, dataDir, acmeKey, config.DigestAPIKey(globexKey))
}

// server is one pads process started in-process through run().
type server struct {
	t    *testing.T
	base string
	logs *syncBuffer
	stop func() // shuts pads down and waits for it
}

func startServer(t *testing.T) *server {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "pads.yaml")
	if err := os.WriteFile(path, []byte(testConfig(filepath.Join(dir, "data"))), 0o600); err != nil {
		t.Fatal(err)
	}
	return startServerAt(t, path)
}

// startServerAt runs pads in-process on the config file at path.
func startServerAt(t *testing.T, path string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	done := make(chan struct{})
	var runErr error
	go func() {
		runErr = run(ctx, []string{"serve", "--config", path}, func(string) string { return "" }, io.Discard, logs)
		close(done)
	}()
	stop := sync.OnceFunc(func() {
		cancel()
		<-done
		if runErr != nil {
			t.Errorf("run: %v", runErr)
		}
	})
	t.Cleanup(stop)
	addr := waitForAddr(t, logs.String, done, func() error { return runErr })
	return &server{t: t, base: "http://" + addr, logs: logs, stop: stop}
}

var listeningRE = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

// waitForAddr returns the address pads logs when it listens; done closes
// if pads exits first, and exitErr then says why.
func waitForAddr(t *testing.T, logs func() string, done <-chan struct{}, exitErr func() error) string {
	t.Helper()
	deadline := time.Now().Add(busyWait)
	for time.Now().Before(deadline) {
		if m := listeningRE.FindStringSubmatch(logs()); m != nil {
			return m[1]
		}
		select {
		case <-done:
			t.Fatalf("pads exited: %v\n%s", exitErr(), logs())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("pads did not start:\n%s", logs())
	return ""
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (s *server) do(method, path string, header map[string]string, body string) response {
	s.t.Helper()
	return doHTTP(s.t, s.base, method, path, header, body)
}

func doHTTP(t testing.TB, base, method, path string, header map[string]string, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	json.Unmarshal(raw, &r.body)
	return r
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

func newSaveRequest(base, tok, body string) (*http.Request, error) {
	req, err := http.NewRequest("POST", base+"/patient/savePatientData?dataType=non-sensitive", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

func (s *server) token(client, key, audience string) string {
	s.t.Helper()
	path := "/storage/authenticate"
	if audience == "smile" {
		path = "/padsSmile/authenticate"
	}
	r := s.do("POST", path, jsonHeader, fmt.Sprintf(`{"username":%q,"password":%q}`, client, key))
	if r.status != 200 {
		s.t.Fatalf("authenticate %s: %d %s", client, r.status, r.raw)
	}
	return r.body["token"].(string)
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

func (s *server) save(tok, dataType, body string) response {
	s.t.Helper()
	return s.do("POST", "/patient/savePatientData?dataType="+dataType,
		map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}, body)
}

// buildPads builds the binary once per test run, for tests that need a real
// process (kill -9, signals).
var buildPads = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "pads-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "pads")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})
