// Package receiver is the receiving end of pads' webhooks, for Go
// programs: an http.Handler that verifies each delivery's Standard
// Webhooks signature, refuses stale or future timestamps, drops a
// delivery it has already taken (by webhook-id), decodes the body into
// typed structs (the seed's two payloads, or a FHIR R4 Bundle), hands it
// to your function and answers.
//
//	h, err := receiver.New(os.Getenv("PADS_WHSEC"), func(ctx context.Context, d *receiver.Delivery) error {
//		return queue.Put(ctx, d) // hand the work on; answer fast
//	})
//	http.Handle("POST /webhooks/pads", h)
//
// pads delivers at least once, and retries a delivery that was not
// answered 2xx within its timeout (30 s at most): keep the function
// short, and do the work elsewhere. An error from it answers 500, and
// pads tries again later under the same webhook-id.
//
// The package imports nothing of pads: it is the contract of
// docs/delivery.md, and its structs carry the payloads' JSON names.
package receiver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// DefaultTolerance is how far a delivery's webhook-timestamp may be from
// the receiver's clock, either way: the Standard Webhooks default.
const DefaultTolerance = 5 * time.Minute

// DefaultMaxBodyBytes bounds a delivery's body: pads' largest, a
// sensitive FHIR Bundle, is about 12 KiB.
const DefaultMaxBodyBytes = 1 << 20

// HandleFunc takes one verified delivery, seen for the first time. It
// should hand the work on (a queue, a table) and return: pads waits for
// the answer. An error makes the Handler answer 500 and forget the
// delivery's id, so pads' retry of it is handled again.
type HandleFunc func(ctx context.Context, d *Delivery) error

// Handler is the http.Handler of New.
type Handler struct {
	wh        *standardwebhooks.Webhook
	handle    HandleFunc
	seen      Seen
	tolerance time.Duration
	now       func() time.Time
	maxBody   int64
}

// Option tunes a Handler.
type Option func(*Handler)

// WithTolerance sets how old or how far in the future a webhook-timestamp
// may be (default DefaultTolerance). A replay of a captured request is
// refused once it is older.
func WithTolerance(d time.Duration) Option { return func(h *Handler) { h.tolerance = d } }

// WithSeen sets where the ids of deliveries already taken are kept
// (default NewMemorySeen(100_000), which forgets on restart). Give one
// backed by your database to deduplicate across restarts and processes.
func WithSeen(s Seen) Option { return func(h *Handler) { h.seen = s } }

// WithClock sets the clock timestamps are checked against (default
// time.Now); for tests.
func WithClock(now func() time.Time) Option { return func(h *Handler) { h.now = now } }

// WithMaxBodyBytes bounds the body read (default DefaultMaxBodyBytes); a
// larger one is answered 413.
func WithMaxBodyBytes(n int64) Option { return func(h *Handler) { h.maxBody = n } }

// New returns a Handler that verifies deliveries signed with secret (the
// destination's auth.hmac secret, "whsec_" and base64) and hands each
// new one to handle.
func New(secret string, handle HandleFunc, opts ...Option) (*Handler, error) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return nil, fmt.Errorf("receiver: the secret must be whsec_ and base64: %w", err)
	}
	if handle == nil {
		return nil, errors.New("receiver: a HandleFunc is needed")
	}
	h := &Handler{wh: wh, handle: handle, tolerance: DefaultTolerance, now: time.Now, maxBody: DefaultMaxBodyBytes}
	for _, o := range opts {
		o(h)
	}
	if h.seen == nil {
		h.seen = NewMemorySeen(100_000)
	}
	return h, nil
}

// Errors of Verify; the Handler answers each with 401.
var (
	ErrSignature = errors.New("receiver: no valid signature")
	ErrTimestamp = errors.New("receiver: webhook-timestamp outside the tolerance")
)

// ServeHTTP answers 204 for a delivery it handled or had already taken,
// 401 for a bad signature or timestamp, 400 for a body that is not a pads
// payload, 413 for one too large, 405 for another method, and 500 when the
// HandleFunc or the Seen store failed (pads will retry).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	d, err := h.Verify(body, r.Header)
	if err != nil {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if err := d.decode(); err != nil {
		http.Error(w, "not a pads payload", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	first, err := h.seen.Add(ctx, d.ID)
	if err != nil {
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	if !first { // taken before: pads may send a delivery twice
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := h.handle(ctx, d); err != nil {
		h.seen.Forget(context.WithoutCancel(ctx), d.ID) // so pads' retry is handled
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Verify checks a delivery's signature with the official Standard
// Webhooks library and its timestamp against the Handler's clock and
// tolerance, and returns the delivery, not yet decoded. Errors:
// ErrSignature, ErrTimestamp.
func (h *Handler) Verify(body []byte, header http.Header) (*Delivery, error) {
	if err := h.wh.VerifyIgnoringTimestamp(body, header); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	secs, _ := strconv.ParseInt(header.Get("webhook-timestamp"), 10, 64) // parsed by the verification
	ts := time.Unix(secs, 0)
	if now := h.now(); ts.Before(now.Add(-h.tolerance)) || ts.After(now.Add(h.tolerance)) {
		return nil, ErrTimestamp
	}
	attempt, _ := strconv.Atoi(header.Get("X-Pads-Attempt"))
	return &Delivery{ID: header.Get("webhook-id"), Timestamp: ts, Attempt: attempt, Model: header.Get("X-Pads-Model"), Body: body}, nil
}
