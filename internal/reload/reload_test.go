package reload_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/reload"
)

// configText is a valid config; extra is appended (tls, a changed key).
func configText(dir, clientID, extra string) string {
	return fmt.Sprintf(`serviceName: pads
listen: 127.0.0.1:0
dataDir: %s
clients:
  - id: %s
    apiKeys: [{key: "0123456789abcdef0123"}]
    funnels: [{id: main}]
%s`, filepath.Join(dir, "data"), clientID, extra)
}

// selfSigned writes a certificate (with serial) and its key, and returns
// when it expires: each serial expires a minute later than the one before.
func selfSigned(t *testing.T, certFile, keyFile string, serial int64) time.Time {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	notAfter := time.Now().Add(time.Hour + time.Duration(serial)*time.Minute).Truncate(time.Second)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "pads test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	return notAfter
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

// A reload puts a valid file in force whole, keeping the listen address;
// an invalid file, or a certificate that does not load, is rejected with
// its reason and changes nothing; keys that shape the process warn that
// they wait for a restart.
func TestReload(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		next    func(dir, certFile, keyFile string) string // the file's new text
		ok      bool
		serial  int64 // the certificate served after, 1 at the start
		logHas  string
		applied string // the client id in force after
	}{
		{"a valid file is put in force", func(dir, c, k string) string { return configText(dir, "globex", tlsKeys(c, k)) },
			true, 1, "config reloaded", "globex"},
		{"an invalid file is rejected", func(dir, c, k string) string { return configText(dir, "", tlsKeys(c, k)) },
			false, 1, "config reload rejected", "acme"},
		{"a new certificate is served", func(dir, c, k string) string {
			return configText(dir, "acme", tlsKeys(filepath.Join(dir, "new.crt"), filepath.Join(dir, "new.key")))
		}, true, 2, "tls certificate reloaded", "acme"},
		{"a certificate that does not load is rejected", func(dir, c, k string) string {
			return configText(dir, "globex", tlsKeys(filepath.Join(dir, "missing.crt"), k))
		}, false, 1, "tls: load the certificate", "acme"},
		{"turning tls off waits for a restart", func(dir, c, k string) string { return configText(dir, "acme", "") },
			true, 1, "turning tls on or off takes effect at the next restart", "acme"},
		{"a new dataDir waits for a restart", func(dir, c, k string) string {
			return strings.Replace(configText(dir, "acme", tlsKeys(c, k)), "/data", "/elsewhere", 1)
		}, true, 1, "dataDir, database, serviceName, listen and secrets take effect at the next restart", "acme"},
		{"a new read timeout waits for a restart", func(dir, c, k string) string {
			return configText(dir, "acme", tlsKeys(c, k)+"limits: {readTimeout: 45s}\n")
		}, true, 1, "readTimeout, writeTimeout and idleTimeout take effect at the next restart", "acme"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
			first := selfSigned(t, certFile, keyFile, 1)
			second := selfSigned(t, filepath.Join(dir, "new.crt"), filepath.Join(dir, "new.key"), 2)
			path := filepath.Join(dir, "pads.yaml")
			os.WriteFile(path, []byte(configText(dir, "acme", tlsKeys(certFile, keyFile))), 0o600)
			started, err := config.Load(path, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			started.Listen = "127.0.0.1:4321" // as --listen would set it
			cert, err := reload.LoadCertificate(started.TLS)
			if err != nil {
				t.Fatal(err)
			}
			live, observed := started, []bool{}
			var logs syncBuffer
			r := &reload.Reloader{Path: path, Getenv: os.Getenv, Started: started, Current: func() *config.Config { return live },
				Cert: cert, Apply: func(cfg *config.Config) { live = cfg }, Log: slog.New(slog.NewTextHandler(&logs, nil)),
				Observe: func(ok bool) { observed = append(observed, ok) }}

			os.WriteFile(path, []byte(tt.next(dir, certFile, keyFile)), 0o600)
			if got := r.Reload(); got != tt.ok || len(observed) != 1 || observed[0] != tt.ok {
				t.Fatalf("Reload() = %v, observed %v; want %v", got, observed, tt.ok)
			}
			if live.Clients[0].ID != tt.applied || live.Listen != "127.0.0.1:4321" {
				t.Errorf("in force: client %s, listen %s; want %s, the listen address kept", live.Clients[0].ID, live.Listen, tt.applied)
			}
			want := map[int64]time.Time{1: first, 2: second}[tt.serial]
			if !cert.NotAfter().Equal(want) {
				t.Errorf("serving the certificate expiring %v, want %v", cert.NotAfter(), want)
			}
			if !strings.Contains(logs.String(), tt.logHas) {
				t.Errorf("log lacks %q:\n%s", tt.logHas, logs.String())
			}
		})
	}
}

func tlsKeys(certFile, keyFile string) string {
	return fmt.Sprintf("tls: {certFile: %s, keyFile: %s}\n", certFile, keyFile)
}
