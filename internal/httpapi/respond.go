package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/pads-dev/pads/internal/intake"
)

// errorBody is the contract's error shape.
type errorBody struct {
	Message       string              `json:"message"`
	RequestID     string              `json:"requestId"`
	Errors        []intake.FieldError `json:"errors,omitempty"`
	IgnoredFields []string            `json:"ignoredFields,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, r *http.Request, status int, message string) {
	writeJSON(w, status, errorBody{Message: message, RequestID: requestID(r)})
}
