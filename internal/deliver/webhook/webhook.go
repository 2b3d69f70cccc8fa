// Package webhook delivers payloads by signed HTTP POST, the Standard
// Webhooks way, with the destination's chosen authentication.
package webhook

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/egress"
)

// maxResponse is how much of an answer is kept for the attempt log.
const maxResponse = 1 << 10

// Error classes of a webhook attempt, beyond egress's (docs/delivery.md).
const (
	ClassAuth    = "auth_failed"
	ClassScheme  = "plain_http_refused"
	ClassRequest = "bad_request_config"
)

// Sender posts webhooks. One Sender serves every destination; it keeps
// connections and OAuth2 tokens between attempts.
type Sender struct {
	service   string // "Pads" in X-Pads-Signature
	userAgent string
	policy    func() config.DestinationPolicy
	client    *http.Client // SSRF-guarded
	open      *http.Client // for allowPrivateNetworks
	tokens    *tokens
}

// NewSender returns a Sender. serviceName names the X-<ServiceName>-*
// headers; policy returns the config's destinations policy in force.
func NewSender(serviceName, version string, policy func() config.DestinationPolicy) *Sender {
	s := &Sender{
		service:   strings.ToUpper(serviceName[:1]) + serviceName[1:],
		userAgent: "pads/" + version,
		policy:    policy,
		client:    egress.NewClient(true),
		open:      egress.NewClient(false),
	}
	s.tokens = &tokens{byDest: map[*config.OAuth2Auth]oauth2.TokenSource{}}
	return s
}

// Send makes one attempt.
func (s *Sender) Send(ctx context.Context, clientID string, d *config.Destination, m deliver.Message) deliver.Result {
	pol := s.policy()
	hc := s.client
	if pol.AllowPrivateNetworks {
		hc = s.open
	}
	u, err := url.Parse(d.URL)
	if err != nil {
		return deliver.Result{ErrorClass: ClassRequest}
	}
	if u.Scheme != "https" && !pol.AllowPlainHTTP {
		return deliver.Result{ErrorClass: ClassScheme}
	}
	res, retry := s.post(ctx, hc, d, m)
	if retry && d.Auth.OAuth2 != nil {
		// A 401 with a cached token: the token may have been revoked early.
		// Fetch a fresh one and try once more within this attempt.
		s.tokens.forget(d.Auth.OAuth2)
		res, _ = s.post(ctx, hc, d, m)
	}
	return res
}

// post sends the request; retry reports a 401 worth one more try with a
// fresh OAuth2 token.
func (s *Sender) post(ctx context.Context, hc *http.Client, d *config.Destination, m deliver.Message) (deliver.Result, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(m.Body))
	if err != nil {
		return deliver.Result{ErrorClass: ClassRequest}, false
	}
	h := req.Header
	for k, v := range d.Headers {
		h.Set(k, v)
	}
	if err := s.authorize(req, hc, &d.Auth); err != nil {
		return deliver.Result{ErrorClass: ClassAuth}, false
	}
	ts := strconv.FormatInt(m.Timestamp.Unix(), 10)
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", s.userAgent)
	h.Set("webhook-id", m.ID)
	h.Set("webhook-timestamp", ts)
	if d.Auth.HMAC != nil {
		sig := Sign(hmacKeys(d.Auth.HMAC), m.ID, m.Timestamp, m.Body)
		h.Set("webhook-signature", sig)
		h.Set("X-"+s.service+"-Signature", sig)
	}
	h.Set("X-"+s.service+"-Event", string(m.DataType))
	h.Set("X-"+s.service+"-Attempt", strconv.Itoa(m.Attempt))

	resp, err := hc.Do(req)
	if err != nil {
		return deliver.Result{ErrorClass: egress.Classify(ctx, err)}, false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	res := deliver.Result{StatusCode: resp.StatusCode, Response: body}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return res, false
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		res.ErrorClass = "http_3xx"
	case resp.StatusCode == http.StatusTooManyRequests:
		res.ErrorClass = "http_429"
	case resp.StatusCode >= 500:
		res.ErrorClass = "http_5xx"
	default:
		res.ErrorClass = "http_4xx"
	}
	res.RetryAfter = deliver.RetryAfter(resp.StatusCode, resp.Header, time.Now())
	return res, resp.StatusCode == http.StatusUnauthorized
}

func hmacKeys(a *config.HMACAuth) [][]byte {
	keys := make([][]byte, 0, 1+len(a.PreviousSecrets))
	for _, s := range append([]string{a.Secret}, a.PreviousSecrets...) {
		if k, err := config.WebhookSecret(s); err == nil {
			keys = append(keys, k)
		}
	}
	return keys
}
