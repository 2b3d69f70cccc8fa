package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/config"
)

// delivered is one webhook the demo receiver accepted.
type delivered struct {
	header http.Header
	body   []byte
	err    error // the signature check
}

// demo shows the whole flow on this machine: pads on the embedded default
// (SQLite in a temporary data dir), a local webhook receiver, a demo
// client, a save of each data type, and the two deliveries with their
// signatures checked by the official Standard Webhooks library.
func demo(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stdout, stderr)
	keep := fs.String("dir", "", "keep the demo's data in this directory (default: a temporary one, removed after)")
	format := fs.String("format", config.FormatSeedJSON, "the destination's format: seed-json or fhir-r4 (a FHIR R4 Bundle)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *format != config.FormatSeedJSON && *format != config.FormatFHIR {
		return fmt.Errorf("demo: --format must be seed-json or fhir-r4")
	}
	dir := *keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "pads-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	secret := "whsec_" + base64.StdEncoding.EncodeToString(randomBytes(32))
	got, receiverURL, stopReceiver, err := startReceiver(secret)
	if err != nil {
		return err
	}
	defer stopReceiver()
	apiKey, digest := config.NewAPIKey()
	path := filepath.Join(dir, "pads.yaml")
	if err := os.WriteFile(path, []byte(demoConfig(dir, digest, receiverURL, secret, *format)), 0o600); err != nil {
		return err
	}

	logs := &syncBuffer{}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(sctx, []string{"serve", "--config", path}, getenv, io.Discard, logs) }()
	defer func() { stop(); <-done }()
	base, err := waitListening(logs, done)
	if err != nil {
		return err
	}
	p := &printer{w: stdout}
	p.step("pads is running at %s on SQLite in %s; a webhook receiver listens at %s", base, dir, receiverURL)

	tok, err := demoToken(base, apiKey)
	if err != nil {
		return err
	}
	p.step("POST /storage/authenticate as client \"demo\" -> a Bearer token")
	for _, s := range []struct{ dataType, body string }{
		{"non-sensitive", `{"assessmentType":"faceScan","funnelID":"demo-main","email":"ada@example.com","first_name":"Ada",
			"last_name":"Lovelace","zip":"02134","dob":"1990-02-28","sex":"female","contactConsent":"yes","formCompleted":true}`},
		{"sensitive", `{"assessmentType":"faceScan","funnelID":"demo-main","email":"ADA@example.com","heartRateBpm":62,
			"heartRateVariabilityMs":55,"rmssd":45,"systolicBloodPressureMmhg":"118","diastolicBloodPressureMmhg":76,"oxygen":98,
			"breathingRateBpm":14,"heightFt":5,"heightIn":6,"weightKg":60,"riskBmi":21.3,"riskTotalCholestrol":180,"riskHdl":55,
			"riskLdl":95,"riskTriglycerdies":120,"riskMetSComp":0,"riskTenYrCvd":2.1,"smoker":false,"diabetic":"no",
			"hypertension":false,"hypertensionMedication":false,"assessmentCompleted":true}`},
	} {
		status, answer, err := demoSave(base, tok, s.dataType, s.body)
		if err != nil {
			return err
		}
		p.step("POST /patient/savePatientData?dataType=%s -> %d %s", s.dataType, status, strings.TrimSpace(answer))
	}
	for range 2 {
		select {
		case d := <-got:
			if err := p.delivery(d); err != nil {
				return err
			}
		case <-time.After(20 * time.Second):
			return errors.New("demo: a delivery did not arrive within 20s")
		case err := <-done:
			return fmt.Errorf("demo: pads stopped: %v", err)
		}
	}
	p.step("done: both results were delivered, signed, and verified by the receiver")
	return nil
}

func demoConfig(dir, digest, receiverURL, secret, format string) string {
	return fmt.Sprintf(`# Written by pads demo.
listen: 127.0.0.1:0
dataDir: %s
destinations:
  allowPrivateNetworks: true   # the receiver is on this machine
  allowPlainHTTP: true
clients:
  - id: demo
    apiKeys: [{sha256: %s}]
    subscription: full
    funnels: [{id: demo-main}]
    destinations:
      - type: webhook
        url: %s
        format: %s
        auth:
          hmac: {secret: %q}
        retry: {attempts: 3, initialDelay: 1s, multiplier: 2}
`, dir, digest, receiverURL, format, secret)
}

// startReceiver runs the demo's webhook endpoint on 127.0.0.1.
func startReceiver(secret string) (<-chan delivered, string, func(), error) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return nil, "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	got := make(chan delivered, 4)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		err := wh.Verify(body, r.Header)
		if err != nil {
			w.WriteHeader(http.StatusUnauthorized)
		} else {
			fmt.Fprintf(w, `{"status":"received","uuid":%q,"timestamp":%q}`, uuidOf(body), time.Now().UTC().Format(time.RFC3339))
		}
		got <- delivered{header: r.Header.Clone(), body: body, err: err}
	})}
	go srv.Serve(ln)
	return got, "http://" + ln.Addr().String() + "/webhooks/pads", func() { srv.Close() }, nil
}

func uuidOf(body []byte) string {
	var v struct{ UUID string }
	json.Unmarshal(body, &v)
	return v.UUID
}

func waitListening(logs *syncBuffer, done <-chan error) (string, error) {
	deadline := time.After(20 * time.Second)
	for {
		if i := strings.Index(logs.String(), `"msg":"listening","addr":"`); i >= 0 {
			rest := logs.String()[i+len(`"msg":"listening","addr":"`):]
			return "http://" + rest[:strings.IndexByte(rest, '"')], nil
		}
		select {
		case err := <-done:
			return "", fmt.Errorf("demo: pads did not start: %v\n%s", err, logs.String())
		case <-deadline:
			return "", fmt.Errorf("demo: pads did not start in 20s\n%s", logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func demoToken(base, apiKey string) (string, error) {
	body := fmt.Sprintf(`{"username":"demo","password":%q}`, apiKey)
	resp, err := http.Post(base+"/storage/authenticate", "application/json", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Token == "" {
		return "", fmt.Errorf("demo: authenticate answered %d", resp.StatusCode)
	}
	return out.Token, nil
}

func demoSave(base, tok, dataType, body string) (int, string, error) {
	req, _ := http.NewRequest("POST", base+"/patient/savePatientData?dataType="+dataType, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return 0, "", fmt.Errorf("demo: save answered %d %s", resp.StatusCode, answer)
	}
	return resp.StatusCode, string(answer), nil
}

type printer struct{ w io.Writer }

func (p *printer) step(format string, args ...any) { fmt.Fprintf(p.w, "==> "+format+"\n", args...) }

func (p *printer) delivery(d delivered) error {
	if d.err != nil {
		return fmt.Errorf("demo: the receiver refused a signature: %v", d.err)
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, d.body, "    ", "  ")
	p.step("webhook received: %s payload (%s)", d.header.Get("X-Pads-Event"), d.header.Get("Content-Type"))
	fmt.Fprintf(p.w, "    webhook-id:        %s\n    webhook-timestamp: %s\n    webhook-signature: %s\n    signature verified with the Standard Webhooks library: ok\n    %s\n",
		d.header.Get("webhook-id"), d.header.Get("webhook-timestamp"), d.header.Get("webhook-signature"), pretty.String())
	return nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// syncBuffer is an io.Writer that one goroutine may write while another
// reads: the demo's (and the tests') view of a running server's log.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
