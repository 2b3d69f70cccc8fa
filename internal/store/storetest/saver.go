package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// The suite saves records as pads's save service does (find the record,
// apply internal/record's rules, commit only if it is unchanged, start
// over on a conflict), with its own small routing table and payloads: the
// store folder imports nothing above the store (no save, intake, config,
// payload or fhir). The real service runs over SQLite in internal/httpapi's
// tests and over both drivers in cmd/pads's end-to-end tests.

// suiteModel is the scoring model version the suite's payloads carry.
const suiteModel = "storetest-model-1"

// Client is how the suite routes a client's saves.
type Client struct {
	// Full: the client's subscription includes results.
	Full bool
	// Destinations receive each event of the client's records.
	Destinations []string
}

// Clients are the clients the suite saves for (those of Config): acme
// (full results, destinations d1 and d2), globex (identity data only, no
// destination) and initech (full results, no destination).
var Clients = map[string]Client{
	"acme":    {Full: true, Destinations: []string{"d1", "d2"}},
	"globex":  {},
	"initech": {Full: true},
}

// SaveRequest is a save of one record of a client.
type SaveRequest struct {
	AssessmentType string
	FunnelID       string
	PatientUUID    string // "": the record is found by Email
	Email          string
	Patch          record.Patch
}

// Result says what a save did.
type Result struct {
	PatientUUID string
	Created     bool
	Raised      []record.DataType
	Deliveries  int
}

// Saver saves records into a store the way pads does.
type Saver struct {
	store   store.Records
	clients map[string]Client
	// Now is the clock of the saves; time.Now when nil.
	Now func() time.Time
}

// Saves returns a Saver over s for the suite's Clients.
func Saves(t testing.TB, s store.Records) *Saver {
	t.Helper()
	return &Saver{store: s, clients: Clients}
}

// SavesFor returns a Saver over s for clients.
func SavesFor(s store.Records, clients map[string]Client) *Saver {
	return &Saver{store: s, clients: clients}
}

// Save saves r for clientID and returns once it is committed.
func (sv *Saver) Save(ctx context.Context, clientID string, r *SaveRequest) (Result, error) {
	client, ok := sv.clients[clientID]
	if !ok || r.FunnelID != clientID+"-main" {
		return Result{}, fmt.Errorf("storetest: unknown client %q or funnel %q", clientID, r.FunnelID)
	}
	now := time.Now
	if sv.Now != nil {
		now = sv.Now
	}
	s := record.Save{ClientID: clientID, AssessmentType: r.AssessmentType, PatientUUID: r.PatientUUID, Email: r.Email,
		FunnelID: r.FunnelID, Patch: r.Patch, FullSubscription: client.Full}
	lookup := store.Lookup{ClientID: clientID, AssessmentType: r.AssessmentType, PatientUUID: r.PatientUUID, Email: r.Email}
	newUUID := uuid.Must(uuid.NewV7()).String()
	for range 100 {
		prev, err := sv.store.Find(ctx, lookup)
		if err != nil {
			return Result{}, err
		}
		var stored *record.Record
		if prev != nil {
			stored = &prev.Record
		}
		change := record.Apply(stored, s, now().UTC(), newUUID)
		var events []store.NewEvent
		for _, dt := range change.Raised {
			events = append(events, store.NewEvent{DataType: dt, Model: suiteModel, Payload: payloadOf(dt, change.Record),
				FHIR: bundleOf(dt, change.Record)})
		}
		done, err := sv.store.Commit(ctx, store.Commit{Lookup: lookup, Previous: prev, Record: change.Record, Events: events,
			Destinations: client.Destinations})
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return Result{}, err
		}
		return Result{PatientUUID: change.Record.PatientUUID, Created: change.Created, Raised: change.Raised,
			Deliveries: done.Deliveries}, nil
	}
	return Result{}, errors.New("storetest: the record kept changing")
}

// payloadOf is the suite's payload of an event: every value the record
// holds, by its catalogue name, with the record's uuid, the data type and
// the model, so that a value left in clear in the database shows.
func payloadOf(dt record.DataType, rec record.Record) []byte {
	fields, err := json.Marshal(rec.Fields)
	if err != nil {
		panic(err)
	}
	body := map[string]any{}
	if err := json.Unmarshal(fields, &body); err != nil {
		panic(err)
	}
	body["uuid"], body["dataType"], body["model"] = rec.PatientUUID, string(dt), suiteModel
	b, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	return b
}

// bundleOf is the suite's FHIR Bundle of an event: a collection with the
// Patient, and for sensitive data one Observation more.
func bundleOf(dt record.DataType, rec record.Record) []byte {
	type resource struct {
		ResourceType string `json:"resourceType"`
		ID           string `json:"id"`
	}
	type entry struct {
		Resource resource `json:"resource"`
	}
	entries := []entry{{resource{"Patient", rec.PatientUUID}}}
	if dt == record.Sensitive {
		entries = append(entries, entry{resource{"Observation", rec.PatientUUID + "-results"}})
	}
	b, err := json.Marshal(struct {
		ResourceType string  `json:"resourceType"`
		Type         string  `json:"type"`
		Entry        []entry `json:"entry"`
	}{"Bundle", "collection", entries})
	if err != nil {
		panic(err)
	}
	return b
}

// Request is a save of a faceScan record of client through its main
// funnel; uuid "" looks the record up by email. clear names fields the
// save sets to null.
func Request(client, uuid, email string, f record.Fields, clear ...string) *SaveRequest {
	f.AssessmentType, f.FunnelID, f.Email = new("faceScan"), new(client+"-main"), new(email)
	if uuid != "" {
		f.PatientUUID = new(uuid)
	}
	p := record.Patch{Values: f}
	for _, name := range clear {
		i, ok := record.FieldIndex(name)
		if !ok {
			panic("storetest: no field " + name)
		}
		p.Clear(i)
	}
	return &SaveRequest{AssessmentType: "faceScan", FunnelID: client + "-main", Email: email, PatientUUID: uuid, Patch: p}
}

// SetField sets field i of f to a value of its type.
func SetField(f *record.Fields, i int) {
	switch reflect.TypeOf(record.Fields{}).Field(i).Type.Elem().Kind() {
	case reflect.Float64:
		f.Set(i, 1.5)
	case reflect.Bool:
		f.Set(i, true)
	default:
		f.Set(i, "value of "+record.FieldName(i))
	}
}

// PlainFields are the numbers of the fields a save may set freely: not the
// key fields, and not the flags that raise events.
func PlainFields() []int {
	var out []int
	for i := range record.NumFields() {
		switch record.FieldName(i) {
		case "assessmentType", "funnelID", "email", "patientUUID", "formCompleted", "assessmentCompleted":
			continue
		}
		out = append(out, i)
	}
	return out
}
