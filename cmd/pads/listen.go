package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/config"
)

// listenAddrEnv moves pads listen's default address, and the starter
// config's local destination with it, when 8090 is taken.
const listenAddrEnv = "PADS_LISTEN_ADDR"

// maxListenBody bounds a delivery pads listen reads: a FHIR Bundle of one
// record is a few KiB.
const maxListenBody = 4 << 20

// forwardTimeout bounds a relay to --forward-to: under pads' own attempt
// timeout (30 s at most), so pads hears the receiver's answer, not its own.
const forwardTimeout = 25 * time.Second

// listen runs a local webhook receiver: it checks each delivery's
// signature with the official Standard Webhooks library, prints it as a
// clinic would read it, and answers 2xx, or relays it to --forward-to.
func listen(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("listen", stdout, stderr)
	addr := fs.String("listen", "", "address to receive on (default $"+listenAddrEnv+", else "+config.DefaultListenAddr+")")
	secret := fs.String("secret", "", "whsec_ secret to verify with (default: the secret \"listen\" in --data-dir's secrets.json)")
	dataDir := fs.String("data-dir", config.DefaultDataDir, "the data directory of pads serve, whose secrets.json holds the secret")
	forward := fs.String("forward-to", "", "relay each verified delivery, headers and body unchanged, to this URL, and answer pads with its status")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageOf(fs.FlagSet)
	}
	if *addr == "" {
		*addr = cmp(getenv(listenAddrEnv), config.DefaultListenAddr)
	}
	if *forward != "" {
		if err := checkForwardURL(*forward); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w (set --listen or %s, and the destination's url with it)", err, listenAddrEnv)
	}
	l := &listener{out: stdout, forward: *forward, client: &http.Client{Timeout: forwardTimeout}}
	fmt.Fprintf(stdout, "pads listen: receiving on http://%s%s\n", ln.Addr(), config.ListenPath)
	if *secret != "" {
		if err := l.setSecret(*secret, "--secret"); err != nil {
			ln.Close()
			return err
		}
	} else {
		go l.readSecret(ctx, *dataDir)
	}
	if *forward != "" {
		fmt.Fprintf(stdout, "pads listen: relaying each verified delivery to %s\n", *forward)
	}
	srv := &http.Server{Handler: l, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func cmp(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

func checkForwardURL(s string) error {
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return fmt.Errorf("listen: --forward-to must be an http or https URL")
	}
	return nil
}

// listener is pads listen's HTTP handler.
type listener struct {
	out     io.Writer
	forward string
	client  *http.Client

	mu sync.Mutex // guards wh and serialises printing
	wh *standardwebhooks.Webhook
}

func (l *listener) setSecret(s, from string) error {
	if _, err := config.WebhookSecret(s); err != nil {
		return fmt.Errorf("listen: %s %v", from, err)
	}
	wh, err := standardwebhooks.NewWebhook(s)
	if err != nil {
		return fmt.Errorf("listen: %s: %v", from, err)
	}
	l.mu.Lock()
	l.wh = wh
	l.mu.Unlock()
	fmt.Fprintf(l.out, "pads listen: verifying signatures with the secret from %s\n", from)
	return nil
}

// readSecret reads the data dir's listen secret, waiting for pads serve
// to write it on its first start: the two may be started in either order.
func (l *listener) readSecret(ctx context.Context, dataDir string) {
	path := filepath.Join(dataDir, config.SecretsFile)
	waiting := false
	for {
		s, err := config.StoredWebhookSecret(dataDir, config.ListenSecret)
		if err == nil {
			if err := l.setSecret(s, path); err != nil {
				fmt.Fprintln(l.out, "pads listen:", err)
			}
			return
		}
		if !waiting {
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(l.out, "pads listen: waiting for pads serve to write %s (or give --secret)\n", path)
			} else {
				fmt.Fprintf(l.out, "pads listen: %v; waiting (or give --secret)\n", err)
			}
			waiting = true
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (l *listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "pads listen takes POST deliveries", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxListenBody+1))
	if err != nil || len(body) > maxListenBody {
		http.Error(w, "body unreadable or too large", http.StatusRequestEntityTooLarge)
		return
	}
	l.mu.Lock()
	wh := l.wh
	l.mu.Unlock()
	if wh == nil {
		// pads retries: by then the secret is read.
		l.printf("!!! a delivery came before the secret was read: answered 503, pads will retry\n")
		http.Error(w, "no secret yet", http.StatusServiceUnavailable)
		return
	}
	if err := wh.Verify(body, r.Header); err != nil {
		l.printf("!!! delivery %s REFUSED: its signature does not verify (%v): answered 401\n", r.Header.Get("webhook-id"), err)
		http.Error(w, "signature does not verify", http.StatusUnauthorized)
		return
	}
	if l.forward == "" {
		l.print(r.Header, body, "answered 200")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"received","uuid":%q}`, uuidOf(body))
		return
	}
	l.relay(w, r, body)
}

// relay posts the delivery to --forward-to with its headers and body as
// they came, and gives pads that receiver's status and body.
func (l *listener) relay(w http.ResponseWriter, r *http.Request, body []byte) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, l.forward, bytes.NewReader(body))
	if err != nil {
		http.Error(w, "bad --forward-to", http.StatusBadGateway)
		return
	}
	for k, vs := range r.Header {
		if hopByHop[http.CanonicalHeaderKey(k)] {
			continue
		}
		req.Header[k] = append([]string(nil), vs...)
	}
	resp, err := l.client.Do(req)
	if err != nil {
		l.print(r.Header, body, fmt.Sprintf("relay to %s failed (%v): answered 502, pads will retry", l.forward, err))
		http.Error(w, "forward failed", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	l.print(r.Header, body, fmt.Sprintf("relayed to %s, which answered %d: answered pads the same", l.forward, resp.StatusCode))
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// hopByHop are the headers of one connection, not of the delivery; Go's
// client sets Content-Length and Host itself.
var hopByHop = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Transfer-Encoding": true,
	"Te": true, "Trailer": true, "Upgrade": true, "Content-Length": true, "Host": true,
}

func (l *listener) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.out, format, args...)
}

// print shows a verified delivery: what it is about, then its payload.
func (l *listener) print(h http.Header, body []byte, outcome string) {
	var pretty bytes.Buffer
	if json.Indent(&pretty, body, "    ", "  ") != nil {
		pretty.Reset()
		pretty.Write(body)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.out, "==> %s  delivery %s  %s\n", time.Now().Format("15:04:05"), h.Get("webhook-id"), summary(h, body))
	fmt.Fprintf(l.out, "    signature verified with the Standard Webhooks library: ok; %s\n    %s\n", outcome, pretty.String())
}

// summary is one line a clinic reads first: which event, which patient,
// and, for new results (results-updated), the message they replace.
func summary(h http.Header, body []byte) string {
	var v struct {
		UUID             string
		AssessmentType   string `json:"assessmentType"`
		UpdatesMessageID string `json:"updatesMessageId"`
	}
	json.Unmarshal(body, &v)
	parts := []string{}
	if e := h.Get("X-Pads-Event"); e != "" {
		parts = append(parts, "event "+e)
	}
	if v.UUID != "" {
		parts = append(parts, "patient "+v.UUID)
	}
	if v.AssessmentType != "" {
		parts = append(parts, v.AssessmentType)
	}
	if v.UpdatesMessageID != "" {
		parts = append(parts, "updates "+v.UpdatesMessageID)
	}
	if strings.Contains(h.Get("Content-Type"), "fhir") {
		parts = append(parts, "FHIR R4 Bundle")
	}
	return strings.Join(parts, "  ")
}
