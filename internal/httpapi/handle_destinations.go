package httpapi

import (
	"errors"
	"net/http"

	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
)

// testResultJSON is a test send's answer in the admin API.
type testResultJSON struct {
	Destination string  `json:"destination"`
	MessageID   string  `json:"messageId"`
	OK          bool    `json:"ok"`
	StatusCode  int     `json:"statusCode,omitempty"`
	ErrorClass  string  `json:"errorClass,omitempty"`
	Response    string  `json:"response,omitempty"`
	DurationMs  float64 `json:"durationMs"`
}

// handleTestDestination sends a test event to a destination and answers
// 200 with what it answered (ok says whether it took it), or 404 when the
// config has no such destination.
func handleTestDestination(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		ref := store.DestinationRef{ClientID: r.PathValue("client"), ID: r.PathValue("id")}
		res, err := d.Operator.TestSend(r.Context(), actor, ref)
		if errors.Is(err, operator.ErrNoDestination) {
			writeError(w, r, http.StatusNotFound, "Not found")
			return
		}
		if err != nil {
			operatorFailed(d, w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, testResultJSON{Destination: ref.ClientID + "/" + ref.ID, MessageID: res.MessageID, OK: res.OK(),
			StatusCode: res.StatusCode, ErrorClass: res.ErrorClass, Response: string(res.Response),
			DurationMs: float64(res.Duration.Microseconds()) / 1000})
	}
}
