package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/pads-dev/pads/docs"
	"github.com/pads-dev/pads/internal/store"
)

// handleOpenAPI serves docs/openapi.yaml, the API's OpenAPI 3 document,
// as built into this binary: it describes the version running.
func handleOpenAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/yaml; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		w.Write(docs.OpenAPI)
	})
}

// handleHealthz answers while the process can serve HTTP at all.
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

// handleReadyz answers 200 only while the database answers.
func handleReadyz(s store.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.Ping(ctx); err != nil {
			writeError(w, r, http.StatusServiceUnavailable, "Service unavailable")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
}
