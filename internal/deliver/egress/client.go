package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// NewClient returns an HTTP client for deliveries. guarded clients connect
// only to public addresses (see Public).
func NewClient(guarded bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if guarded {
		d.Control = Guard
	}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // a proxy would connect on our behalf, past the guard
			DialContext:         d.DialContext,
			TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConns:        512,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
			ForceAttemptHTTP2:   true,
		},
		// Redirects are not followed: a 3xx is an answer, and a failed one.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Classes of a failed outbound call with no answer (docs/delivery.md).
const (
	ClassTimeout    = "timeout"
	ClassBlocked    = "ssrf_blocked"
	ClassDNS        = "dns"
	ClassConnection = "connection"
	ClassTLS        = "tls"
)

// Classify names a transport error without repeating it (it may hold the
// URL, and with it a token in a query string).
func Classify(ctx context.Context, err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	switch {
	case errors.Is(err, ErrBlocked):
		return ClassBlocked
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return ClassTimeout
	case errors.As(err, &dnsErr):
		return ClassDNS
	case errors.As(err, &certErr) || errors.As(err, &recErr) || strings.Contains(err.Error(), "tls:"):
		return ClassTLS
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ClassTimeout
	}
	return ClassConnection
}
