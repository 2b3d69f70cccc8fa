package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
)

// adminHandler is an admin API handler; actor names the operator.
type adminHandler func(w http.ResponseWriter, r *http.Request, actor string)

// admin checks an admin token; the operator service then audits every
// call before it runs.
func admin(d Deps, h adminHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, ok := bearer(w, r, d.Tokens, auth.AudienceAdmin)
		if !ok {
			return
		}
		// Removed since the token was issued, or the key it was issued
		// under is, or its tokens were revoked (pads tokens revoke --admin).
		a := d.Config().Admin(claims.Subject)
		if a == nil || !d.Tokens.IssuedUnder(claims, a.KeyDigests()) || d.Revocations.RevokedAdmin(claims) {
			invalidToken(w, r, refusedRevoked)
			return
		}
		actor := "admin:" + a.ID
		infoFrom(r.Context()).client = actor
		h(w, r, actor)
	})
}

// operatorFailed answers an error of the operator service: a request to
// correct (400, with the service's message), an unknown delivery (404), or
// a store error.
func operatorFailed(d Deps, w http.ResponseWriter, r *http.Request, err error) {
	if ie, ok := operator.IsInvalid(err); ok {
		writeError(w, r, http.StatusBadRequest, ie.Error())
		return
	}
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, r, http.StatusNotFound, "Not found")
		return
	}
	if errors.Is(err, store.ErrBodyGone) {
		writeError(w, r, http.StatusConflict, "The event's body was removed by retention; the delivery cannot be replayed")
		return
	}
	storeFailed(d.Logger, w, r, err)
}

type deliveryJSON struct {
	ID             int64      `json:"id"`
	MessageID      string     `json:"messageId"`
	ClientID       string     `json:"clientId"`
	PatientUUID    string     `json:"patientUUID"`
	AssessmentType string     `json:"assessmentType"`
	FunnelID       string     `json:"funnelID"`
	DataType       string     `json:"dataType"`
	Destination    string     `json:"destination"`
	State          string     `json:"state"`
	Series         int        `json:"series"`
	Attempts       int        `json:"attempts"`
	NextAt         *time.Time `json:"nextAt,omitempty"` // pending deliveries only
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	LastError      string     `json:"lastError,omitempty"`
	Model          string     `json:"model"`
}

func toJSON(x store.Delivery) deliveryJSON {
	return deliveryJSON{ID: x.ID, MessageID: x.MessageID, ClientID: x.Key.ClientID, PatientUUID: x.Key.PatientUUID,
		AssessmentType: x.Key.AssessmentType, FunnelID: x.FunnelID, DataType: string(x.DataType), Destination: x.Destination,
		State: x.State, Series: x.Series, Attempts: x.Attempts, NextAt: nextAt(x), CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt,
		LastError: x.LastError, Model: x.Model}
}

// nextAt is when a pending delivery is tried next; a delivered or failed
// one has no next attempt (the store keeps a sentinel time for it).
func nextAt(x store.Delivery) *time.Time {
	if x.State != store.Pending {
		return nil
	}
	return &x.NextAt
}

func handleListDeliveries(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		q := r.URL.Query()
		limit, err := operator.ParseLimit(q.Get("limit"))
		if err != nil {
			operatorFailed(d, w, r, err)
			return
		}
		ds, err := d.Operator.List(r.Context(), actor, operator.ListRequest{State: q.Get("status"), ClientID: q.Get("client"),
			Destination: q.Get("destination"), PatientUUID: q.Get("patient"), MessageID: q.Get("message"), Limit: limit})
		if err != nil {
			operatorFailed(d, w, r, err)
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
		if !ok {
			return
		}
		x, attempts, err := d.Operator.Show(r.Context(), actor, id)
		if err != nil {
			operatorFailed(d, w, r, err)
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
		if !ok {
			return
		}
		n, err := d.Operator.Replay(r.Context(), actor, id)
		replayed(d, w, r, n, err)
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
		since, err := operator.ParseSince(in.Since, d.Now())
		if err != nil {
			operatorFailed(d, w, r, err)
			return
		}
		n, err := d.Operator.ReplayFailed(r.Context(), actor, since, in.Client)
		replayed(d, w, r, n, err)
	}
}

func replayed(d Deps, w http.ResponseWriter, r *http.Request, n int, err error) {
	if err != nil {
		operatorFailed(d, w, r, err)
		return
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
		limit, err := operator.ParseLimit(r.URL.Query().Get("limit"))
		if err != nil {
			operatorFailed(d, w, r, err)
			return
		}
		log, err := d.Operator.AuditLog(r.Context(), actor, limit)
		if err != nil {
			operatorFailed(d, w, r, err)
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

// handleErase erases one patient's data under a client: 404 for a client
// not in the config, 200 with the counts (zeros when nothing was stored).
func handleErase(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		var in struct {
			Client  string `json:"client"`
			Patient string `json:"patient"`
			Email   string `json:"email"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<10))
		if json.Unmarshal(body, &in) != nil || in.Client == "" || (in.Patient == "") == (in.Email == "") {
			writeError(w, r, http.StatusBadRequest, `Body must be {"client": client id, "patient": patient uuid} or {"client": client id, "email": email}`)
			return
		}
		n, err := d.Operator.Erase(r.Context(), actor, operator.PatientRequest{ClientID: in.Client, PatientUUID: in.Patient, Email: in.Email})
		if errors.Is(err, operator.ErrUnknownClient) {
			writeError(w, r, http.StatusNotFound, "Unknown client")
			return
		}
		if err != nil {
			operatorFailed(d, w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"erased": n.Records > 0, "records": n.Records, "events": n.Events,
			"deliveries": n.Deliveries, "cancelled": n.Cancelled, "attempts": n.Attempts})
	}
}

// handleDeliverPatient is POST /admin/patient-deliveries: a patient's
// results a destination never had (operator.DeliverPatient).
func handleDeliverPatient(d Deps) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, actor string) {
		var in struct {
			Client         string `json:"client"`
			Patient        string `json:"patient"`
			Destination    string `json:"destination"`
			AssessmentType string `json:"assessmentType"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<10))
		if json.Unmarshal(body, &in) != nil || in.Client == "" || in.Patient == "" || in.Destination == "" {
			writeError(w, r, http.StatusBadRequest, `Body must be {"client": client id, "patient": patient uuid, "destination": destination id}`)
			return
		}
		n, err := d.Operator.DeliverPatient(r.Context(), actor, operator.PatientDelivery{ClientID: in.Client, PatientUUID: in.Patient,
			Destination: in.Destination, AssessmentType: in.AssessmentType})
		switch {
		case errors.Is(err, operator.ErrUnknownClient):
			writeError(w, r, http.StatusNotFound, "Unknown client")
		case errors.Is(err, operator.ErrNoDestination):
			writeError(w, r, http.StatusNotFound, "Unknown destination")
		case errors.Is(err, store.ErrNotFound):
			writeError(w, r, http.StatusNotFound, "No record of that patient")
		case err != nil:
			operatorFailed(d, w, r, err)
		default:
			writeJSON(w, http.StatusOK, map[string]int{"events": n.Events, "enqueued": n.Enqueued, "already": n.Already, "gone": n.Gone})
		}
	}
}
