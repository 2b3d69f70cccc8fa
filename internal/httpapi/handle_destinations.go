package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

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

// destinationJSON is a destination and its pause in the admin API.
type destinationJSON struct {
	Client      string     `json:"client"`
	ID          string     `json:"id"`
	InConfig    bool       `json:"inConfig"`
	Environment string     `json:"environment,omitempty"`
	Type        string     `json:"type,omitempty"`
	Host        string     `json:"host,omitempty"`
	Format      string     `json:"format,omitempty"`
	Events      []string   `json:"events,omitempty"`
	MaxPerSec   float64    `json:"maxPerSecond,omitempty"`
	State       string     `json:"state"` // active or paused
	PausedAt    *time.Time `json:"pausedAt,omitempty"`
	PausedBy    string     `json:"pausedBy,omitempty"`
	Reason      string     `json:"reason,omitempty"`
}

func handleListDestinations(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		states, err := d.Operator.Destinations(r.Context(), actor)
		if err != nil {
			operatorFailed(d, w, r, err)
			return
		}
		out := make([]destinationJSON, 0, len(states))
		for _, s := range states {
			j := destinationJSON{Client: s.ClientID, ID: s.ID, State: "active"}
			if c := s.Config; c != nil {
				j.InConfig, j.Environment, j.Type, j.Host, j.Format, j.Events, j.MaxPerSec = true, c.Environment, c.Type, c.Host(), c.Format, c.Events, c.MaxPerSecond
			}
			if p := s.Pause; p != nil {
				at := p.At
				j.State, j.PausedAt, j.PausedBy, j.Reason = "paused", &at, p.By, p.Reason
			}
			out = append(out, j)
		}
		writeJSON(w, http.StatusOK, map[string]any{"destinations": out})
	}
}

// handlePauseDestination pauses a destination; the body, optional, is
// {"reason": "..."}. It answers {"paused": true}, or false when it was
// paused already.
func handlePauseDestination(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		var in struct {
			Reason string `json:"reason"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<10))
		if len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &in) != nil {
			writeError(w, r, http.StatusBadRequest, `Body must be empty or {"reason": "one line"}`)
			return
		}
		ref := store.DestinationRef{ClientID: r.PathValue("client"), ID: r.PathValue("id")}
		changed, err := d.Operator.PauseDestination(r.Context(), actor, ref, in.Reason)
		if errors.Is(err, operator.ErrNoDestination) {
			writeError(w, r, http.StatusNotFound, "Not found")
			return
		}
		if err != nil {
			operatorFailed(d, w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"paused": changed})
	}
}

// handleResumeDestination resumes a destination: {"resumed": true}, or
// false when it was not paused.
func handleResumeDestination(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		ref := store.DestinationRef{ClientID: r.PathValue("client"), ID: r.PathValue("id")}
		changed, err := d.Operator.ResumeDestination(r.Context(), actor, ref)
		if err != nil {
			operatorFailed(d, w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"resumed": changed})
	}
}
