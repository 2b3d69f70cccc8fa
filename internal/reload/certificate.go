package reload

import (
	"crypto/tls"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/pads-dev/pads/internal/config"
)

// cipherSuites are the TLS 1.2 suites pads offers: forward-secret ECDHE
// with an AEAD (AES-GCM or ChaCha20-Poly1305), nothing with CBC, RSA key
// exchange or SHA-1. TLS 1.3's suites are all of that kind and not
// configurable.
var cipherSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// Certificate is the certificate pads serves, swapped whole by a reload:
// a handshake after the swap gets the new one, a connection already open
// keeps its session.
type Certificate struct {
	current atomic.Pointer[tls.Certificate]
}

// LoadCertificate reads the config's certificate and key (PEM).
func LoadCertificate(t config.TLS) (*Certificate, error) {
	c, err := loadPair(t)
	if err != nil {
		return nil, err
	}
	cert := &Certificate{}
	cert.current.Store(c)
	return cert, nil
}

func loadPair(t config.TLS) (*tls.Certificate, error) {
	c, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("tls: load the certificate %s and key %s: %w", t.CertFile, t.KeyFile, err)
	}
	return &c, nil
}

// NotAfter is when the certificate in force expires (zero if unknown).
func (c *Certificate) NotAfter() time.Time { return notAfter(c.current.Load()) }

func notAfter(c *tls.Certificate) time.Time {
	if c.Leaf == nil {
		return time.Time{}
	}
	return c.Leaf.NotAfter
}

// Listener serves TLS on ln: TLS 1.2 and 1.3 only, the suites above, and
// HTTP/1.1 (the protocol the timeouts and the connection limit are tested
// on). The handshake is bounded by limits.readHeaderTimeout.
func (c *Certificate) Listener(ln net.Listener) net.Listener {
	return tls.NewListener(ln, &tls.Config{
		MinVersion:   tls.VersionTLS12,
		CipherSuites: cipherSuites,
		NextProtos:   []string{"http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.current.Load(), nil
		},
	})
}
