// Package harness runs pads as a real process for the load commands that
// kill it, fill its disk or run it for a long time (loadtest/crash,
// loadtest/soak): its config with the secrets given (so a checker can open
// its store), a webhook receiver that verifies and counts what arrives,
// paced saves that each complete a form (one delivery each) with values
// that can be checked afterwards, and a read of every record back through
// the store.
package harness

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/sqlite"
)

// The load's client, its funnel and API key, and the webhook secret.
const (
	Client  = "load"
	Funnel  = "load-main"
	APIKey  = "load-test-key-0123456789"
	Webhook = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
)

// Setup is what a pads config of the harness says.
type Setup struct {
	// Dir holds the config and, for SQLite, the data.
	Dir string
	// Database is a postgres:// URL, or "" for SQLite in Dir/data.
	Database string
	// Port is the port pads listens on, the same at every restart.
	Port int
	// Receiver is the webhook destination's URL.
	Receiver string
	// Extra is YAML appended to the load client's destinations (indented
	// six spaces, as list items).
	Extra string
	// ClientExtra is YAML added to the load client (indented four spaces,
	// as keys of the client), e.g. its retention.
	ClientExtra string
}

// WriteConfig writes the config of s to s.Dir/pads.yaml, with fresh
// secrets in it, and returns its path.
func WriteConfig(s Setup) (string, error) {
	data := filepath.Join(s.Dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return "", err
	}
	db := ""
	if s.Database != "" {
		db = fmt.Sprintf("database: %q\n", s.Database)
	}
	cfg := fmt.Sprintf(`listen: 127.0.0.1:%d
dataDir: %s
%ssecrets:
  jwtKeys: [{id: k1, key: %q}]
  encryptionKeys: [{id: e1, key: %q}]
destinations: {allowPrivateNetworks: true, allowPlainHTTP: true}
clients:
  - id: %s
    apiKeys: [{key: %s}]
    subscription: full
    limits: {savesPerSecond: 1000000}   # measure pads, not the client's save limit
    funnels: [{id: %s}]
%s    destinations:
      - id: main
        type: webhook
        url: %s
        auth: {hmac: {secret: %q}}
        retry: {attempts: 20, initialDelay: 1s, multiplier: 2}
%s`, s.Port, data, db, config.NewSecret(), config.NewSecret(), Client, APIKey, Funnel, s.ClientExtra, s.Receiver, Webhook, s.Extra)
	path := filepath.Join(s.Dir, "pads.yaml")
	return path, os.WriteFile(path, []byte(cfg), 0o600)
}

// FreePort returns a TCP port free on 127.0.0.1 now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Pads is the pads binary run on one config, started again after each
// kill.
type Pads struct {
	Bin    string
	Config string
	Base   string // http://127.0.0.1:port
	// Logs, when set, is the directory where each start's stderr goes
	// (pads-1.log, pads-2.log, ...).
	Logs   string
	starts int
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts pads and waits until it answers /healthz.
func (p *Pads) Start(ctx context.Context) error {
	p.starts++
	cmd := exec.Command(p.Bin, "serve", "--config", p.Config)
	if p.Logs != "" {
		f, err := os.Create(filepath.Join(p.Logs, fmt.Sprintf("pads-%d.log", p.starts)))
		if err != nil {
			return err
		}
		defer f.Close() // the child has its own descriptor
		cmd.Stderr = f
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start pads: %w", err)
	}
	p.cmd, p.exited = cmd, make(chan struct{})
	go func(done chan struct{}) { cmd.Wait(); close(done) }(p.exited)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("pads exited at start (%v); see its log", cmd.ProcessState)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if resp, err := http.Get(p.Base + "/healthz"); err == nil {
			resp.Body.Close()
			return nil
		}
	}
	return errors.New("pads did not answer /healthz within 60s")
}

// Pid is the running process's id.
func (p *Pads) Pid() int { return p.cmd.Process.Pid }

// Kill ends pads with SIGKILL, as a crash would, and waits for it.
func (p *Pads) Kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// Stop ends pads with SIGTERM (a graceful stop) and waits for it, killing
// it after 30 seconds.
func (p *Pads) Stop() {
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.Kill()
	}
}

// Receiver is a webhook destination that verifies each delivery's
// signature and counts deliveries by message id and by patient.
type Receiver struct {
	URL   string
	srv   *http.Server
	key   []byte
	delay func() time.Duration

	mu       sync.Mutex
	messages map[string]int // webhook-id -> arrivals
	patients map[string]time.Time
	arrivals int
	badSig   atomic.Int64
	// OnArrival, when set before the first delivery, is told each
	// patient's delivery as it arrives.
	OnArrival func(uuid string, at time.Time)
}

// NewReceiver starts a receiver on 127.0.0.1. delay, when not nil, is how
// long each answer waits (a receiver's own work).
func NewReceiver(delay func() time.Duration) (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(Webhook, "whsec_"))
	r := &Receiver{URL: "http://" + ln.Addr().String(), key: key, delay: delay,
		messages: map[string]int{}, patients: map[string]time.Time{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

// ServeHTTP receives one delivery.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	now := time.Now()
	if !r.verify(req.Header, body) {
		r.badSig.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if r.delay != nil {
		time.Sleep(r.delay())
	}
	var p struct {
		UUID string `json:"uuid"`
	}
	json.Unmarshal(body, &p)
	r.mu.Lock()
	r.arrivals++
	r.messages[req.Header.Get("webhook-id")]++
	_, seen := r.patients[p.UUID]
	if !seen {
		r.patients[p.UUID] = now
	}
	on := r.OnArrival
	r.mu.Unlock()
	if on != nil && !seen {
		on(p.UUID, now)
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *Receiver) verify(h http.Header, body []byte) bool {
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	m.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(want), []byte(sig)) {
			return true
		}
	}
	return false
}

// Arrived reports whether a delivery for the patient has arrived.
func (r *Receiver) Arrived(uuid string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.patients[uuid]
	return ok
}

// Duplicates counts arrivals of a message beyond its first.
func (r *Receiver) Duplicates() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.arrivals - len(r.messages)
}

// Arrivals counts every delivery that arrived, duplicates included.
func (r *Receiver) Arrivals() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.arrivals
}

// BadSignatures counts deliveries refused for their signature.
func (r *Receiver) BadSignatures() int { return int(r.badSig.Load()) }

// Close stops the receiver.
func (r *Receiver) Close() { r.srv.Close() }

// OpenStore opens the store of the config at path with its secrets, as
// pads does, to read records back.
func OpenStore(ctx context.Context, path string) (store.Store, error) {
	cfg, err := config.Load(path, os.Getenv)
	if err != nil {
		return nil, err
	}
	keys, _, err := config.LoadKeys(cfg)
	if err != nil {
		return nil, err
	}
	var sk []seal.Key
	for _, k := range keys.Encryption {
		sk = append(sk, seal.Key{ID: k.ID, Secret: k.Secret})
	}
	kr, err := seal.NewKeyring(sk)
	if err != nil {
		return nil, err
	}
	if p, ok := strings.CutPrefix(cfg.Database, "sqlite://"); ok {
		return sqlite.Open(ctx, p, store.Config{Keys: kr})
	}
	return postgres.Open(ctx, cfg.Database, store.Config{Keys: kr})
}

// FreshDatabase creates a new database, named prefix and random hex
// digits, on the PostgreSQL server of the URL server, and returns its URL
// and what drops it.
func FreshDatabase(ctx context.Context, server, prefix string) (string, func(), error) {
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := prefix + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create a fresh database (or run with -fresh=false): %w", err)
	}
	u, err := url.Parse(server)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx := context.Background()
		if conn, err := pgx.Connect(ctx, server); err == nil {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			conn.Close(ctx)
		}
	}
	return u.String(), drop, nil
}
