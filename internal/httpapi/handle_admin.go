package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/store"
)

// adminHandler is an admin API handler; actor names the operator.
type adminHandler func(w http.ResponseWriter, r *http.Request, actor string)

// admin checks an admin token and audits every call before it runs: an
// action whose audit entry cannot be written does not happen.
func admin(d Deps, h adminHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := bearer(w, r, d.Tokens, auth.AudienceAdmin)
		if !ok {
			return
		}
		if d.Config().Admin(id) == nil { // removed since the token was issued
			invalidToken(w, r)
			return
		}
		actor := "admin:" + id
		infoFrom(r.Context()).client = actor
		h(w, r, actor)
	})
}

// audit records an admin action; false means it was answered with 500.
func audit(d Deps, w http.ResponseWriter, r *http.Request, actor, action, target string) bool {
	err := d.Store.Audit(r.Context(), store.AuditEntry{At: d.Now().UTC(), Actor: actor, Action: action, Target: target})
	if err != nil {
		d.Logger.Error("audit", "request_id", requestID(r), "err", err)
		writeError(w, r, http.StatusInternalServerError, "Internal server error")
		return false
	}
	return true
}

type deliveryJSON struct {
	ID             int64     `json:"id"`
	MessageID      string    `json:"messageId"`
	ClientID       string    `json:"clientId"`
	PatientUUID    string    `json:"patientUUID"`
	AssessmentType string    `json:"assessmentType"`
	FunnelID       string    `json:"funnelID"`
	DataType       string    `json:"dataType"`
	Destination    string    `json:"destination"`
	State          string    `json:"state"`
	Series         int       `json:"series"`
	Attempts       int       `json:"attempts"`
	NextAt         time.Time `json:"nextAt"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
	LastError      string    `json:"lastError,omitempty"`
}

func toJSON(x store.Delivery) deliveryJSON {
	return deliveryJSON{ID: x.ID, MessageID: x.MessageID, ClientID: x.Key.ClientID, PatientUUID: x.Key.PatientUUID,
		AssessmentType: x.Key.AssessmentType, FunnelID: x.FunnelID, DataType: string(x.DataType), Destination: x.Destination,
		State: x.State, Series: x.Series, Attempts: x.Attempts, NextAt: x.NextAt, CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt,
		LastError: x.LastError}
}

func handleListDeliveries(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		q := r.URL.Query()
		state, client := q.Get("status"), q.Get("client")
		if state != "" && state != store.Pending && state != store.Delivered && state != store.Failed {
			writeError(w, r, http.StatusBadRequest, "status must be pending, delivered or failed")
			return
		}
		limit, ok := limitParam(w, r)
		if !ok || !audit(d, w, r, actor, "deliveries.list", fmt.Sprintf("status=%q client=%q", state, client)) {
			return
		}
		ds, err := d.Store.Deliveries(r.Context(), store.DeliveryFilter{State: state, ClientID: client, Limit: limit})
		if err != nil {
			storeFailed(d.Logger, w, r, err)
			return
		}
		out := make([]deliveryJSON, len(ds))
		for i, x := range ds {
			out[i] = toJSON(x)
		}
		writeJSON(w, http.StatusOK, map[string]any{"deliveries": out})
	}
}

func handleShowDelivery(d Deps) adminHandler {
	type attemptJSON struct {
		Series     int       `json:"series"`
		Number     int       `json:"number"`
		Owner      string    `json:"owner"`
		StartedAt  time.Time `json:"startedAt"`
		DurationMs float64   `json:"durationMs"`
		StatusCode int       `json:"statusCode,omitempty"`
		ErrorClass string    `json:"errorClass,omitempty"`
		Response   string    `json:"response,omitempty"`
	}
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		id, ok := idParam(w, r)
		if !ok || !audit(d, w, r, actor, "deliveries.show", "delivery:"+strconv.FormatInt(id, 10)) {
			return
		}
		x, attempts, err := d.Store.Delivery(r.Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			writeError(w, r, http.StatusNotFound, "Not found")
			return
		}
		if err != nil {
			storeFailed(d.Logger, w, r, err)
			return
		}
		out := make([]attemptJSON, len(attempts))
		for i, a := range attempts {
			out[i] = attemptJSON{Series: a.Series, Number: a.Number, Owner: a.Owner, StartedAt: a.StartedAt,
				DurationMs: float64(a.Duration.Microseconds()) / 1000, StatusCode: a.StatusCode, ErrorClass: a.ErrorClass, Response: string(a.Response)}
		}
		writeJSON(w, http.StatusOK, map[string]any{"delivery": toJSON(x), "attempts": out})
	}
}

func handleReplayDelivery(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		id, ok := idParam(w, r)
		if !ok || !audit(d, w, r, actor, "deliveries.replay", "delivery:"+strconv.FormatInt(id, 10)) {
			return
		}
		replayed(d, w, r, store.ReplayRequest{ID: id, Now: d.Now()})
	}
}

func handleReplayFailed(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		var in struct {
			Since  string `json:"since"`
			Client string `json:"client"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<10))
		if json.Unmarshal(body, &in) != nil || in.Since == "" {
			writeError(w, r, http.StatusBadRequest, `Body must be {"since": RFC 3339 time or duration, "client": optional client id}`)
			return
		}
		since, err := time.Parse(time.RFC3339, in.Since)
		if err != nil {
			dur, derr := time.ParseDuration(in.Since)
			if derr != nil {
				writeError(w, r, http.StatusBadRequest, "since must be an RFC 3339 time or a duration such as 24h")
				return
			}
			since = d.Now().Add(-dur)
		}
		target := fmt.Sprintf("failed since %s client=%q", since.UTC().Format(time.RFC3339), in.Client)
		if !audit(d, w, r, actor, "deliveries.replay_failed", target) {
			return
		}
		replayed(d, w, r, store.ReplayRequest{Since: since, ClientID: in.Client, Now: d.Now()})
	}
}

func replayed(d Deps, w http.ResponseWriter, r *http.Request, req store.ReplayRequest) {
	n, err := d.Store.Replay(r.Context(), req)
	if err != nil {
		storeFailed(d.Logger, w, r, err)
		return
	}
	if n > 0 && d.Notify != nil {
		d.Notify()
	}
	writeJSON(w, http.StatusOK, map[string]int{"replayed": n})
}

func handleAuditLog(d Deps) adminHandler {
	type entryJSON struct {
		ID     int64     `json:"id"`
		At     time.Time `json:"at"`
		Actor  string    `json:"actor"`
		Action string    `json:"action"`
		Target string    `json:"target"`
	}
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		limit, ok := limitParam(w, r)
		if !ok || !audit(d, w, r, actor, "audit.read", "") {
			return
		}
		log, err := d.Store.AuditLog(r.Context(), limit)
		if err != nil {
			storeFailed(d.Logger, w, r, err)
			return
		}
		out := make([]entryJSON, len(log))
		for i, e := range log {
			out[i] = entryJSON(e)
		}
		writeJSON(w, http.StatusOK, map[string]any{"entries": out})
	}
}

func idParam(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, r, http.StatusNotFound, "Not found")
		return 0, false
	}
	return id, true
}

func limitParam(w http.ResponseWriter, r *http.Request) (int, bool) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return 100, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		writeError(w, r, http.StatusBadRequest, "limit must be between 1 and 1000")
		return 0, false
	}
	return n, true
}
