package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/config"
)

// startListen runs pads listen in-process and returns its base URL and
// its output.
func startListen(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"listen", "--listen", "127.0.0.1:0"}, args...), func(string) string { return "" }, out, io.Discard)
	}()
	t.Cleanup(func() { cancel(); <-done })
	re := regexp.MustCompile(`receiving on (http://[^/\s]+)`)
	var m []string
	var stopped error
	waitWithin(busyWait, func() bool {
		select {
		case stopped = <-done:
			done <- stopped // for the cleanup, which waits for it
			return true
		default:
		}
		m = re.FindStringSubmatch(out.String())
		return m != nil
	})
	if m == nil {
		t.Fatalf("pads listen did not start (%v):\n%s", stopped, out.String())
	}
	return m[1], out
}

// TestServeAndListenShowTheFirstSavesWebhookWithNoEditing is the first
// hour: from an empty directory, pads listen and pads serve with no config
// of one's own, and the first save's delivery arrives verified.
func TestServeAndListenShowTheFirstSavesWebhookWithNoEditing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real process")
	}
	t.Parallel()
	dir := t.TempDir()
	// pads listen first: it waits for pads serve to write the secret.
	base, out := startListen(t, "--data-dir", filepath.Join(dir, "pads-data"))
	p := startProcEnv(t, dir, []string{listenAddrEnv + "=" + strings.TrimPrefix(base, "http://")}, "--listen", "127.0.0.1:0")
	key := keyRE.FindString(p.out.String())
	if key == "" || !strings.Contains(p.out.String(), "pads listen") {
		t.Fatalf("the first start must print the key and point at pads listen:\n%s", p.out.String())
	}
	tok := procToken(t, p.base, "demo", key)
	r := doHTTP(t, p.base, "POST", "/patient/savePatientData?dataType=non-sensitive", map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
		`{"assessmentType":"faceScan","funnelID":"demo-main","email":"ada@example.com","first_name":"Ada","formCompleted":true}`)
	if r.status != 201 {
		t.Fatalf("save: %d %s", r.status, r.raw)
	}
	uuid := r.body["patientUUID"].(string)
	if !waitWithin(busyWait, func() bool { return strings.Contains(out.String(), "patient "+uuid) }) {
		t.Fatalf("no delivery of %s in pads listen's output:\n%s\npads logs:\n%s", uuid, out.String(), p.logs.String())
	}
	got := out.String()
	for _, want := range []string{"signature verified with the Standard Webhooks library: ok", `"firstName": "Ada"`, "event non-sensitive"} {
		if !strings.Contains(got, want) {
			t.Errorf("pads listen's output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "REFUSED") {
		t.Errorf("a delivery was refused:\n%s", got)
	}
}

// TestListenForwardsVerifiedDeliveriesUnchanged: --forward-to relays a
// verified delivery's headers and body as they came and answers with the
// receiver's status; a delivery that does not verify goes nowhere.
func TestListenForwardsVerifiedDeliveriesUnchanged(t *testing.T) {
	t.Parallel()
	secret := config.NewWebhookSecret()
	type got struct {
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	var received []got
	status := http.StatusAccepted
	clinic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		received = append(received, got{r.Header.Clone(), b})
		s := status
		mu.Unlock()
		w.WriteHeader(s)
		io.WriteString(w, `{"clinic":"thanks"}`)
	}))
	defer clinic.Close()
	base, _ := startListen(t, "--secret", secret, "--forward-to", clinic.URL+"/hooks")
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"uuid":"0190b8a0-0000-7000-8000-000000000001","assessmentType":"faceScan"}`)
	post := func(sign bool) (int, string) {
		now := time.Now()
		sig, _ := wh.Sign("msg_1", now, body)
		if !sign {
			sig = "v1,AAAA"
		}
		req, _ := http.NewRequest("POST", base+config.ListenPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("webhook-id", "msg_1")
		req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
		req.Header.Set("webhook-signature", sig)
		req.Header.Set("X-Pads-Event", "non-sensitive")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		a, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(a)
	}
	tests := []struct {
		name       string
		sign       bool
		clinicSays int
		want       int
		forwarded  int
	}{
		{"verified, receiver accepts", true, http.StatusAccepted, http.StatusAccepted, 1},
		{"verified, receiver fails", true, http.StatusInternalServerError, http.StatusInternalServerError, 2},
		{"forged", false, http.StatusOK, http.StatusUnauthorized, 2},
	}
	for _, tt := range tests {
		mu.Lock()
		status = tt.clinicSays
		mu.Unlock()
		code, answer := post(tt.sign)
		mu.Lock()
		n := len(received)
		mu.Unlock()
		if code != tt.want || n != tt.forwarded {
			t.Fatalf("%s: answered %d %s with %d forwarded, want %d with %d", tt.name, code, answer, n, tt.want, tt.forwarded)
		}
	}
	first := received[0]
	if !bytes.Equal(first.body, body) {
		t.Errorf("body changed on the way: %s", first.body)
	}
	for _, h := range []string{"webhook-id", "webhook-timestamp", "webhook-signature", "X-Pads-Event", "Content-Type"} {
		if first.header.Get(h) == "" {
			t.Errorf("header %s was not relayed", h)
		}
	}
	// The clinic's receiver verifies the relayed delivery itself.
	if err := wh.Verify(first.body, first.header); err != nil {
		t.Errorf("the relayed delivery does not verify: %v", err)
	}
}
