package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
)

// maxLoginBody bounds an authenticate body; the fields are short.
const maxLoginBody = 4 << 10

type loginBody struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
}

type tokenBody struct {
	Token     string `json:"token"`
	TokenType string `json:"tokenType"`
	ExpiresIn int64  `json:"expiresIn"`
}

// handleAuthenticate exchanges a client id and API key for a token of one
// audience. An unknown client and a wrong key get the same answer after the
// same work; repeated failures of one (username, address) are throttled.
func handleAuthenticate(d Deps, audience string) http.Handler {
	return authenticate(d, audience, func(cfg *config.Config, user string) [][32]byte {
		if c := cfg.Client(user); c != nil {
			return c.KeyDigests()
		}
		return nil
	})
}

// handleAdminAuthenticate is handleAuthenticate for operators.
func handleAdminAuthenticate(d Deps) http.Handler {
	return authenticate(d, auth.AudienceAdmin, func(cfg *config.Config, user string) [][32]byte {
		if a := cfg.Admin(user); a != nil {
			return a.KeyDigests()
		}
		return nil
	})
}

func authenticate(d Deps, audience string, digestsOf func(*config.Config, string) [][32]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !jsonOrAbsent(r.Header.Get("Content-Type")) {
			writeError(w, r, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxLoginBody+1))
		if bodyTimedOut(err) {
			requestTimeout(w, r)
			return
		}
		if err != nil || len(body) > maxLoginBody {
			d.Metrics.ObserveLogin(audience, "bad_request")
			writeError(w, r, http.StatusBadRequest, "Body must be a JSON object with string fields username and password")
			return
		}
		var in loginBody
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := dec.Decode(&in); err != nil || in.Username == nil || in.Password == nil || dec.More() {
			d.Metrics.ObserveLogin(audience, "bad_request")
			writeError(w, r, http.StatusBadRequest, "Body must be a JSON object with string fields username and password")
			return
		}
		user, addr := *in.Username, remoteHost(r)
		if wait, blocked := d.Throttle.Blocked(user, addr); blocked {
			d.Metrics.ObserveLogin(audience, "throttled")
			w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
			writeError(w, r, http.StatusTooManyRequests, "Too many requests")
			return
		}
		cfg := d.Config()
		digests := digestsOf(cfg, user)
		key := auth.KeyIndex(digests, *in.Password)
		if key < 0 {
			d.Throttle.Fail(user, addr)
			d.Metrics.ObserveLogin(audience, "unauthorized")
			writeError(w, r, http.StatusUnauthorized, "Unauthorized")
			return
		}
		d.Throttle.Succeed(user, addr)
		ttl := cfg.TokenTTL.D()
		tok, err := d.Tokens.Issue(user, audience, ttl, digests[key])
		if err != nil {
			d.Logger.Error("issue token", "request_id", requestID(r), "err", err)
			writeError(w, r, http.StatusInternalServerError, "Internal server error")
			return
		}
		infoFrom(r.Context()).client = user
		d.Metrics.ObserveLogin(audience, "ok")
		d.Logger.LogAttrs(r.Context(), slog.LevelInfo, "token issued", slog.String("request_id", requestID(r)),
			slog.String("client", user), slog.String("audience", audience))
		writeJSON(w, http.StatusOK, tokenBody{Token: tok, TokenType: "Bearer", ExpiresIn: int64(ttl / time.Second)})
	})
}

// jsonOrAbsent accepts application/json, any +json type, or no Content-Type
// at all (the authenticate endpoints are lenient; the save endpoint is not).
func jsonOrAbsent(ct string) bool {
	return ct == "" || isJSON(ct)
}

func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// remoteHost is the caller's address (clientAddr): the TCP peer, or the
// address trusted proxies say they got the request from.
func remoteHost(r *http.Request) string {
	if info := infoFrom(r.Context()); info != nil {
		return info.remote
	}
	return r.RemoteAddr
}
