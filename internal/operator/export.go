package operator

import (
	"encoding/json"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/snapshot"
	"github.com/pads-dev/pads/internal/store"
)

// ExportFormat is the version of the export document's shape.
const ExportFormat = "pads-export-1"

// ExportDocument is what `pads records export` writes: everything pads
// keeps of one patient under one client (docs/data-lifecycle.md).
type ExportDocument struct {
	Format     string         `json:"format"`
	ExportedAt time.Time      `json:"exportedAt"`
	Client     string         `json:"client"`
	Records    []exportRecord `json:"records"`
}

type exportRecord struct {
	PatientUUID           string         `json:"patientUUID"`
	AssessmentType        string         `json:"assessmentType"`
	FunnelID              string         `json:"funnelID"`
	CreatedAt             time.Time      `json:"createdAt"`
	UpdatedAt             time.Time      `json:"updatedAt"`
	FormCompletedAt       *time.Time     `json:"formCompletedAt"`
	AssessmentCompletedAt *time.Time     `json:"assessmentCompletedAt"`
	Fields                record.Fields  `json:"fields"`
	Results               []exportResult `json:"results"`
}

// exportResult is one event: the results pads computed and delivered.
type exportResult struct {
	EventID   int64           `json:"eventId"`
	DataType  string          `json:"dataType"`
	Model     string          `json:"model"`
	CreatedAt time.Time       `json:"createdAt"`
	Payload   json.RawMessage `json:"payload"`        // null once retention removed it
	FHIR      json.RawMessage `json:"fhir,omitempty"` // with --fhir only
	// BodyRemoved says the payload is null because retention removed it.
	BodyRemoved bool             `json:"bodyRemoved"`
	Deliveries  []exportDelivery `json:"deliveries"`
}

type exportDelivery struct {
	MessageID   string          `json:"messageId"`
	Destination string          `json:"destination"`
	State       string          `json:"state"`
	Series      int             `json:"series"`
	CreatedAt   time.Time       `json:"createdAt"`
	UpdatedAt   time.Time       `json:"updatedAt"`
	LastError   string          `json:"lastError,omitempty"`
	Attempts    []exportAttempt `json:"attempts"`
}

type exportAttempt struct {
	Series     int       `json:"series"`
	Number     int       `json:"number"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs float64   `json:"durationMs"`
	StatusCode int       `json:"statusCode,omitempty"`
	ErrorClass string    `json:"errorClass,omitempty"`
}

// NewExportDocument lays out recs for a patient of client; fhir adds each
// result's FHIR R4 Bundle beside its JSON payload.
func NewExportDocument(client string, recs []store.PatientRecord, fhir bool, now time.Time) ExportDocument {
	doc := ExportDocument{Format: ExportFormat, ExportedAt: now.UTC(), Client: client, Records: []exportRecord{}}
	for _, r := range recs {
		out := exportRecord{PatientUUID: r.Key.PatientUUID, AssessmentType: r.Key.AssessmentType, FunnelID: r.FunnelID,
			CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), FormCompletedAt: timeOrNil(r.FormCompletedAt),
			AssessmentCompletedAt: timeOrNil(r.AssessmentCompletedAt), Fields: r.Fields, Results: []exportResult{}}
		for _, e := range r.Events {
			body, bundle := exportedBodies(e, fhir)
			res := exportResult{EventID: e.ID, DataType: string(e.DataType), Model: e.Model, CreatedAt: e.CreatedAt.UTC(),
				Payload: rawOrNull(body), BodyRemoved: e.Payload == nil, Deliveries: []exportDelivery{}}
			if bundle != nil {
				res.FHIR = bundle
			}
			for _, d := range e.Deliveries {
				res.Deliveries = append(res.Deliveries, exportedDelivery(d))
			}
			out.Results = append(out.Results, res)
		}
		doc.Records = append(doc.Records, out)
	}
	return doc
}

// exportedBodies are the seed payload of e and, with fhir, its FHIR
// Bundle: as stored for an older event, built from its snapshot (the
// results computed at the save, not run again) for a newer one. A
// snapshot that does not build gives no body.
func exportedBodies(e store.ExportedEvent, fhir bool) (body, bundle []byte) {
	if !e.Snapshot {
		if fhir {
			bundle = e.FHIR
		}
		return e.Payload, bundle
	}
	if e.Payload == nil {
		return nil, nil
	}
	body, _ = snapshot.Body(snapshot.FormatSeedJSON, e.DataType, e.Payload, "")
	if fhir {
		bundle, _ = snapshot.Body(snapshot.FormatFHIR, e.DataType, e.Payload, "")
	}
	return body, bundle
}

func exportedDelivery(d store.ExportedDelivery) exportDelivery {
	out := exportDelivery{MessageID: d.MessageID, Destination: d.Destination, State: d.State, Series: d.Series,
		CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), LastError: d.LastError, Attempts: []exportAttempt{}}
	for _, a := range d.Attempts {
		out.Attempts = append(out.Attempts, exportAttempt{Series: a.Series, Number: a.Number, StartedAt: a.StartedAt.UTC(),
			DurationMs: float64(a.Duration.Microseconds()) / 1000, StatusCode: a.StatusCode, ErrorClass: a.ErrorClass})
	}
	return out
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func rawOrNull(b []byte) json.RawMessage {
	if b == nil || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return b
}
