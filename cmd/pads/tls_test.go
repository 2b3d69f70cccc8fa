package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// selfSigned makes a certificate for 127.0.0.1 with the serial number
// given, writes it and its key where the config names them, and returns
// it.
func selfSigned(t *testing.T, certFile, keyFile string, serial int64) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "pads test"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	keyDER, _ := x509.MarshalECPrivateKey(key)
	// The key first: a reload between the two writes must not pair a new
	// certificate with an old key (pads would refuse it and keep the old).
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	return cert
}

// tlsClient trusts the certificates given; tweak adjusts its TLS config.
func tlsClient(tweak func(*tls.Config), trusted ...*x509.Certificate) *http.Client {
	pool := x509.NewCertPool()
	for _, c := range trusted {
		pool.AddCert(c)
	}
	cfg := &tls.Config{RootCAs: pool}
	if tweak != nil {
		tweak(cfg)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
}

// tlsSave saves a record over c and returns the answer, whether its
// connection was reused, and the serial of the certificate it saw.
func tlsSave(t *testing.T, c *http.Client, base, tok string) (*http.Response, bool, int64) {
	t.Helper()
	req, _ := newSaveRequest(base, tok, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"tls%d@example.com"}`, time.Now().UnixNano()))
	var reused bool
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, reused, resp.TLS.PeerCertificates[0].SerialNumber.Int64()
}

func TestTLSServesModernVersionsAndReloadsItsCertificateWithoutDroppingConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("signals a real process")
	}
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	first := selfSigned(t, certFile, keyFile, 1)
	cfg := strings.Replace(testConfig(filepath.Join(dir, "data")), "limits:\n", "limits:\n  readHeaderTimeout: 2s\n", 1)
	path := writeConfig(t, dir, cfg+fmt.Sprintf(`admins:
  - id: ops
    apiKeys: [{key: %s}]
tls:
  certFile: %s
  keyFile: %s
`, opsKey, certFile, keyFile))
	p := startProc(t, dir, "--config", path)
	base := strings.Replace(p.base, "http://", "https://", 1)
	if !strings.Contains(p.logs.String(), `"tls":true`) {
		t.Fatalf("pads must say it serves TLS:\n%s", p.logs.String())
	}

	// HTTPS works; a client's default is TLS 1.3, over HTTP/1.1 even when
	// it offers h2.
	keepAlive := tlsClient(nil, first)
	login, _ := http.NewRequest("POST", base+"/storage/authenticate", strings.NewReader(fmt.Sprintf(`{"username":"acme","password":%q}`, acmeKey)))
	resp, err := keepAlive.Do(login)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS.Version != tls.VersionTLS13 || resp.Proto != "HTTP/1.1" {
		t.Fatalf("authenticate over TLS: %d, version %x, %s", resp.StatusCode, resp.TLS.Version, resp.Proto)
	}
	if h := resp.Header.Get("Strict-Transport-Security"); h != "max-age=31536000" {
		t.Fatalf("an answer over TLS without HSTS: %q", h)
	}
	if resp, _, serial := tlsSave(t, keepAlive, base, tok.Token); resp.StatusCode != 201 || serial != 1 {
		t.Fatalf("save over TLS: %d, certificate %d", resp.StatusCode, serial)
	}

	// TLS 1.2 with a modern suite only; TLS 1.1, and 1.2 with CBC, refused.
	tls12 := tlsClient(func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 }, first)
	if resp, _, _ := tlsSave(t, tls12, base, tok.Token); resp.TLS.Version != tls.VersionTLS12 || !isAEAD(resp.TLS.CipherSuite) {
		t.Fatalf("TLS 1.2 negotiated %s", tls.CipherSuiteName(resp.TLS.CipherSuite))
	}
	for name, tweak := range map[string]func(*tls.Config){
		"TLS 1.1": func(c *tls.Config) { c.MinVersion, c.MaxVersion = tls.VersionTLS10, tls.VersionTLS11 },
		"TLS 1.2 CBC": func(c *tls.Config) {
			c.MaxVersion, c.CipherSuites = tls.VersionTLS12, []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}
		},
	} {
		if _, err := tlsClient(tweak, first).Get(base + "/healthz"); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
	// Plain HTTP on the TLS port gets net/http's plain 400, and nothing of
	// pads.
	if resp, err := http.Get(p.base + "/healthz"); err == nil && (resp.StatusCode != 400 || resp.Header.Get("X-Request-Id") != "") {
		t.Errorf("plain HTTP on the TLS port: %d", resp.StatusCode)
	}

	// A connection that never starts its handshake is cut at
	// readHeaderTimeout, like one that never sends its headers.
	raw, err := net.Dial("tcp", strings.TrimPrefix(p.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	t0 := time.Now()
	io.Copy(io.Discard, raw)
	if d := time.Since(t0); d < 1800*time.Millisecond || d > 2*time.Second+cutSlack {
		t.Errorf("a silent connection to the TLS port was cut after %v, want about 2s", d)
	} else {
		t.Logf("a silent connection to the TLS port was cut after %v (readHeaderTimeout 2s)", d.Round(time.Millisecond))
	}

	// A new certificate, and SIGHUP: new connections get it, the open
	// keep-alive connection goes on with its session.
	second := selfSigned(t, certFile, keyFile, 2)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool { return strings.Contains(p.logs.String(), "tls certificate reloaded") })
	if resp, _, serial := tlsSave(t, tlsClient(nil, second), base, tok.Token); resp.StatusCode != 201 || serial != 2 {
		t.Fatalf("a new connection after the reload: %d, certificate %d, want 2", resp.StatusCode, serial)
	}
	resp, reused, serial := tlsSave(t, keepAlive, base, tok.Token)
	if resp.StatusCode != 201 || !reused || serial != 1 {
		t.Fatalf("the keep-alive connection after the reload: %d, reused %v, certificate %d; want 201 on the same connection", resp.StatusCode, reused, serial)
	}

	// A broken certificate on reload is refused with its reason; the last
	// good one stays.
	os.WriteFile(certFile, []byte("not a certificate"), 0o600)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool { return strings.Contains(p.logs.String(), "config reload rejected") })
	if !strings.Contains(p.logs.String(), "tls: load the certificate") {
		t.Fatalf("the rejection must say why:\n%s", p.logs.String())
	}
	if resp, _, serial := tlsSave(t, tlsClient(nil, second), base, tok.Token); resp.StatusCode != 201 || serial != 2 {
		t.Fatalf("after a rejected reload: %d, certificate %d, want 2", resp.StatusCode, serial)
	}

	// The console's cookies are Secure over TLS.
	console := tlsClient(nil, second)
	console.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = console.Get(base + "/admin/console/signin")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(page))
	if csrf == nil {
		t.Fatal("no sign-in form")
	}
	signIn, _ := http.NewRequest("POST", base+"/admin/console/signin", strings.NewReader(url.Values{"csrf": {csrf[1]}, "username": {"ops"}, "key": {opsKey}}.Encode()))
	signIn.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range resp.Cookies() {
		signIn.AddCookie(c)
	}
	resp, err = console.Do(signIn)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session string
	for _, line := range resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(line, "pads_console=") {
			session = line
		}
	}
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(session, "; Secure") {
		t.Fatalf("console sign-in over TLS: %d, session cookie %q; want Secure", resp.StatusCode, session)
	}
}

// isAEAD reports whether suite encrypts with an AEAD (AES-GCM or
// ChaCha20-Poly1305): TLS 1.3's suites, or TLS 1.2's with ECDHE.
func isAEAD(suite uint16) bool {
	name := tls.CipherSuiteName(suite)
	aead := strings.Contains(name, "_GCM_") || strings.Contains(name, "CHACHA20_POLY1305")
	return aead && (strings.HasPrefix(name, "TLS_ECDHE_") || !strings.Contains(name, "_WITH_"))
}

func TestTLSRefusesToStartWithoutAUsableCertificate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeConfig(t, dir, testConfig(filepath.Join(dir, "data"))+fmt.Sprintf("tls: {certFile: %s, keyFile: %s}\n",
		filepath.Join(dir, "missing.crt"), filepath.Join(dir, "missing.key")))
	err := run(t.Context(), []string{"serve", "--config", path}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "tls: load the certificate") {
		t.Fatalf("serve with a missing certificate: %v", err)
	}
}
