package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/metrics"
)

// requestInfo travels in the request context so the outer middleware can log
// what the inner handlers learned (route, client), without any field value.
type requestInfo struct {
	id     string
	route  string
	client string
	// remote is the address the request comes from (clientAddr).
	remote string
	// refused is why the request's credentials were refused, if they were.
	refused string
}

type infoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(infoKey{}).(*requestInfo)
	return info
}

func requestID(r *http.Request) string {
	if info := infoFrom(r.Context()); info != nil {
		return info.id
	}
	return ""
}

// hsts is the Strict-Transport-Security of every answer pads serves over
// TLS: browsers keep to https for a year (no includeSubDomains: pads does
// not speak for its domain's other hosts).
const hsts = "max-age=31536000"

// withRequestInfo gives every request an id, the caller's X-Request-Id
// when it is short and plain, else a new random one (every response
// carries it), and the address it comes from (clientAddr).
func withRequestInfo(cfg func() *config.Config, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !plainID(id) {
			b := make([]byte, 12)
			rand.Read(b)
			id = hex.EncodeToString(b)
		}
		w.Header().Set("X-Request-Id", id)
		if r.TLS != nil {
			// Served over TLS: browsers (the console's operators) keep to
			// https from now on.
			w.Header().Set("Strict-Transport-Security", hsts)
		}
		info := &requestInfo{id: id, route: "unmatched", remote: clientAddr(r, cfg())}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))
	})
}

func plainID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// observe logs one line and records metrics per request: id, method, route
// pattern, status, latency and client id. Never a body, token or query.
func observe(log *slog.Logger, m *metrics.Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		d := time.Since(start)
		info := infoFrom(r.Context())
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		m.ObserveRequest(info.route, r.Method, sw.status, d)
		attrs := []slog.Attr{
			slog.String("request_id", info.id),
			slog.String("method", r.Method),
			slog.String("route", info.route),
			slog.Int("status", sw.status),
			slog.Float64("duration_ms", float64(d.Microseconds())/1000),
			slog.String("client", info.client),
			slog.String("remote", info.remote),
		}
		if info.refused != "" {
			attrs = append(attrs, slog.String("refused", info.refused))
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	})
}

// recoverPanics turns a panic into a 500 with the contract's body; the stack
// goes to the log, never to the caller.
func recoverPanics(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic", "request_id", requestID(r), "stack", string(debug.Stack()))
				writeError(w, r, http.StatusInternalServerError, "Internal server error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}
