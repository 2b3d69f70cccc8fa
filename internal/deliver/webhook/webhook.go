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

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/egress"
	"github.com/pads-dev/pads/internal/store"
)

// maxResponse is how much of an answer is kept for the attempt log.
const maxResponse = 1 << 10

// Error classes of a webhook attempt, beyond egress's (docs/delivery.md).
const (
	ClassAuth    = "auth_failed"
	ClassScheme  = "plain_http_refused"
	ClassRequest = "bad_request_config"
)

// ContentType is the media type of a body of the format: FHIR's own,
// application/fhir+json, for a FHIR Bundle (FHIR servers and libraries
// key on it); application/json for the seed payload.
func ContentType(format string) string {
	if format == deliver.FormatFHIR {
		return "application/fhir+json"
	}
	return "application/json"
}

// Sender posts webhooks. One Sender serves every destination; it keeps
// connections, and OAuth2 tokens per destination, between attempts.
type Sender struct {
	service   string // "Pads" in X-Pads-Signature
	userAgent string
	// named are the X-<Service>-* header names, canonical, made once:
	// every attempt sets them.
	named  struct{ signature, event, attempt, model string }
	client *http.Client // SSRF-guarded
	open   *http.Client // for allowPrivateNetworks
	tokens *tokens
}

var _ deliver.Reloader = (*Sender)(nil)

// NewSender returns a Sender. serviceName names the X-<ServiceName>-*
// headers.
func NewSender(serviceName, version string) *Sender {
	s := &Sender{
		service:   strings.ToUpper(serviceName[:1]) + serviceName[1:],
		userAgent: "pads/" + version,
		client:    egress.NewClient(true),
		open:      egress.NewClient(false),
		tokens:    &tokens{byDest: map[store.DestinationRef]*tokenSource{}, now: time.Now},
	}
	name := func(suffix string) string { return http.CanonicalHeaderKey("X-" + s.service + "-" + suffix) }
	s.named.signature, s.named.event, s.named.attempt, s.named.model = name("Signature"), name("Event"), name("Attempt"), name("Model")
	return s
}

// Reload drops the OAuth2 tokens of destinations that are gone or whose
// token settings changed.
func (s *Sender) Reload(dests []deliver.Destination) { s.tokens.reload(dests) }

// Send makes one attempt.
func (s *Sender) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	hc := s.client
	if d.AllowPrivateNetworks {
		hc = s.open
	}
	u, err := url.Parse(d.URL)
	if err != nil {
		return deliver.Result{ErrorClass: ClassRequest}
	}
	if u.Scheme != "https" && !d.AllowPlainHTTP {
		return deliver.Result{ErrorClass: ClassScheme}
	}
	res, retry := s.post(ctx, hc, d, m)
	if retry && d.Auth.OAuth2 != nil {
		// A 401 with a cached token: the token may have been revoked early.
		// Fetch a fresh one and try once more within this attempt.
		s.tokens.forget(d.Ref)
		res, _ = s.post(ctx, hc, d, m)
	}
	return res
}

// post sends the request; retry reports a 401 worth one more try with a
// fresh OAuth2 token.
func (s *Sender) post(ctx context.Context, hc *http.Client, d *deliver.Destination, m deliver.Message) (deliver.Result, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(m.Body))
	if err != nil {
		return deliver.Result{ErrorClass: ClassRequest}, false
	}
	h := req.Header
	for k, v := range d.Headers {
		h.Set(k, v)
	}
	if err := s.authorize(req, hc, d); err != nil {
		return deliver.Result{ErrorClass: ClassAuth}, false
	}
	// Canonical names, set without Header.Set's canonicalizing: the
	// Standard Webhooks headers go out as Webhook-Id and so on, as Set
	// would send them (header names are case-insensitive).
	h["Content-Type"] = []string{ContentType(m.Format)}
	h["User-Agent"] = []string{s.userAgent}
	h["Webhook-Id"] = []string{m.ID}
	h["Webhook-Timestamp"] = []string{strconv.FormatInt(m.Timestamp.Unix(), 10)}
	if keys := d.SigningKeys(m.Timestamp); len(keys) > 0 {
		sig := []string{Sign(keys, m.ID, m.Timestamp, m.Body)}
		h["Webhook-Signature"], h[s.named.signature] = sig, sig
	}
	h[s.named.event] = []string{string(m.DataType)}
	h[s.named.attempt] = []string{strconv.Itoa(m.Attempt)}
	if m.Model != "" { // a test send or an operator event has no results
		h[s.named.model] = []string{m.Model}
	}

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
	case resp.StatusCode == http.StatusGone:
		res.ErrorClass = deliver.ClassGone // pauses the destination
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
