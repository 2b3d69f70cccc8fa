package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/save"
	"github.com/pads-dev/pads/internal/store"
)

type saveBody struct {
	Message       string   `json:"message"`
	PatientUUID   string   `json:"patientUUID"`
	IgnoredFields []string `json:"ignoredFields,omitempty"`
	// DidYouMean names the field an ignored key most likely meant.
	DidYouMean map[string]string `json:"didYouMean,omitempty"`
}

var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// handleSave is POST /patient/savePatientData. It runs the contract's checks
// in the contract's order and answers with the first that fails: the
// token, the client's save limit, the data type, the body (intake), then
// the save itself (package save: the funnel's owner, the rules, the
// commit). A 2xx means the record is durably committed.
func handleSave(d Deps, limits *saveLimits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, ok := bearer(w, r, d.Tokens, auth.AudienceStorage)
		if !ok {
			return
		}
		cfg := d.Config()
		client := cfg.Client(claims.Subject)
		// The token must still stand for a client of the config in
		// force, through one of its API keys in force, and not be
		// revoked (pads tokens revoke).
		if client == nil || !d.Tokens.IssuedUnder(claims, client.KeyDigests()) || d.Revocations.Revoked(claims) {
			invalidToken(w, r, refusedRevoked)
			return
		}
		clientID := client.ID
		infoFrom(r.Context()).client = clientID
		// Before the body is read: a client over its limit costs little.
		if wait, ok := limits.take(client, d.Now()); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfter(wait)))
			writeError(w, r, http.StatusTooManyRequests, "Too many requests")
			return
		}
		dt, ok := record.ParseDataType(r.URL.Query().Get("dataType"))
		if !ok {
			writeError(w, r, http.StatusBadRequest, "Invalid data type. Use 'sensitive' or 'non-sensitive'")
			return
		}
		if !isJSON(r.Header.Get("Content-Type")) {
			writeError(w, r, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
			return
		}
		buf := bodyBuffers.Get().(*bytes.Buffer)
		defer func() { buf.Reset(); bodyBuffers.Put(buf) }()
		if !readBody(w, r, buf, cfg.Limits.MaxBodyBytes) {
			return
		}
		req, err := intake.Decode(buf.Bytes(), dt, d.Now().UTC())
		if err != nil {
			writeIntakeError(w, r, err)
			return
		}
		res, err := d.Saves.Save(r.Context(), clientID, req)
		switch {
		case errors.Is(err, save.ErrForbidden):
			writeError(w, r, http.StatusForbidden, "Invalid Client")
			return
		case errors.Is(err, save.ErrBusy):
			w.Header().Set("Retry-After", "1")
			writeError(w, r, http.StatusServiceUnavailable, "Service unavailable")
			return
		case err != nil:
			storeFailed(d.Logger, w, r, err)
			return
		}
		d.Metrics.ObserveSave(string(dt), res.Created)
		out := saveBody{Message: "Patient data updated", PatientUUID: res.PatientUUID, IgnoredFields: req.Ignored, DidYouMean: req.DidYouMean}
		status := http.StatusOK
		if res.Created {
			out.Message, status = "Patient data created", http.StatusCreated
		}
		writeJSON(w, status, out)
	})
}

// bearer checks the Authorization header and returns the token's claims;
// the caller checks them against the config in force.
func bearer(w http.ResponseWriter, r *http.Request, tokens *auth.Tokens, audience string) (auth.Claims, bool) {
	h := r.Header.Get("Authorization")
	if strings.TrimSpace(h) == "" {
		writeError(w, r, http.StatusUnauthorized, "No authorization header present")
		return auth.Claims{}, false
	}
	scheme, tok, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") || len(tok) > auth.MaxTokenLength {
		invalidToken(w, r, refusedMalformed)
		return auth.Claims{}, false
	}
	claims, err := tokens.Verify(strings.TrimSpace(tok), audience)
	if errors.Is(err, auth.ErrTokenExpired) {
		invalidToken(w, r, refusedExpired)
		return auth.Claims{}, false
	}
	if err != nil {
		invalidToken(w, r, refusedInvalid)
		return auth.Claims{}, false
	}
	return claims, true
}

// Why a token was refused, in the request's log line (refused). Only an
// expired token says so to the client too: every other reason answers
// alike, so a forger learns nothing.
const (
	refusedMalformed = "not a bearer token"
	refusedInvalid   = "invalid token (signature, audience or claims)"
	refusedExpired   = "token expired"
	refusedRevoked   = "token revoked, or its client or API key removed"
)

// invalidToken answers the contract's 401 Invalid token. The header's
// error_description says "token expired" for an expired token only.
func invalidToken(w http.ResponseWriter, r *http.Request, reason string) {
	if info := infoFrom(r.Context()); info != nil {
		info.refused = reason
	}
	h := `Bearer error="invalid_token"`
	if reason == refusedExpired {
		h += `, error_description="token expired"`
	}
	w.Header().Set("WWW-Authenticate", h)
	writeError(w, r, http.StatusUnauthorized, "Invalid token")
}

// readBody reads at most limit bytes into buf, answering 413 past that.
func readBody(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, limit int64) bool {
	if r.ContentLength > limit {
		writeError(w, r, http.StatusRequestEntityTooLarge, "Request body too large")
		return false
	}
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1)); err != nil {
		if bodyTimedOut(err) {
			requestTimeout(w, r)
			return false
		}
		writeError(w, r, http.StatusBadRequest, "Invalid JSON body")
		return false
	}
	if int64(buf.Len()) > limit {
		writeError(w, r, http.StatusRequestEntityTooLarge, "Request body too large")
		return false
	}
	return true
}

// bodyTimedOut reports whether a body read failed because the request
// outlasted limits.readTimeout: a body trickled in too slowly.
func bodyTimedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// requestTimeout answers a request whose body did not arrive within
// limits.readTimeout, and closes the connection: it cannot be read further.
// The answer gets a second of its own, even past limits.writeTimeout.
func requestTimeout(w http.ResponseWriter, r *http.Request) {
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Second))
	w.Header().Set("Connection", "close")
	writeError(w, r, http.StatusRequestTimeout, "Request timeout")
}

func writeIntakeError(w http.ResponseWriter, r *http.Request, err error) {
	var ie *intake.Error
	if !errors.As(err, &ie) {
		writeError(w, r, http.StatusBadRequest, "Invalid JSON body")
		return
	}
	writeJSON(w, http.StatusBadRequest, errorBody{Message: ie.Error(), RequestID: requestID(r), Errors: ie.Errors})
}

// retryAfterUnavailable is the Retry-After, in seconds, of a 503 for an
// unavailable database.
const retryAfterUnavailable = 5

// storeFailed answers a store error: 503 while pads stops, the caller left
// or the database is unavailable (then with Retry-After), else 500 with the
// cause in the log (never in the answer).
func storeFailed(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, store.ErrClosed):
		writeError(w, r, http.StatusServiceUnavailable, "Service unavailable")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// The caller left before its save's turn: nothing was written.
		writeError(w, r, http.StatusServiceUnavailable, "Service unavailable")
	case errors.Is(err, store.ErrUnavailable):
		// Nothing was written, and the same request may succeed shortly:
		// pads reconnects by itself.
		log.Warn("database unavailable", "request_id", requestID(r), "route", infoFrom(r.Context()).route, "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterUnavailable))
		writeError(w, r, http.StatusServiceUnavailable, "Service unavailable")
	default:
		log.Error("store error", "request_id", requestID(r), "route", infoFrom(r.Context()).route, "err", err)
		writeError(w, r, http.StatusInternalServerError, "Internal server error")
	}
}
