// Package snapshot is what an event keeps of the save that raised it: one
// format-neutral snapshot (the record as the save left it, when, and for a
// sensitive event the scoring model's inputs and results then, with the
// model's version), sealed by the store in place of a body. Each delivery
// attempt builds from it the body of its destination's format in force at
// that attempt (seed-json or fhir-r4), so a save does only the work every
// destination needs, a destination that changed its format or was added
// later gets its format, and a retry or a replay sends the results the
// save computed: nothing here runs the model again.
package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// The formats a body can be built in (config.FormatSeedJSON and
// config.FormatFHIR).
const (
	FormatSeedJSON = "seed-json"
	FormatFHIR     = "fhir-r4"
)

// version is the layout of the stored snapshot; a snapshot of another
// layout does not open.
const version = 1

// Snapshot is the stored form of an event.
type Snapshot struct {
	Version int           `json:"v"`
	Record  record.Record `json:"record"`
	// At is when the event was raised (the record's last update).
	At time.Time `json:"at"`
	// Inputs and Result are the model's, for a sensitive event only.
	Inputs *score.Inputs `json:"inputs,omitempty"`
	Result *score.Result `json:"result,omitempty"`
	Model  string        `json:"model"`
	// Updates, for a results-updated event, are the message ids of the
	// earlier deliveries of results it updates, by destination id: each
	// destination's body names the message it replaces there (sent only
	// once that message was delivered, internal/deliver).
	Updates map[string]string `json:"updates,omitempty"`
}

// Take snapshots the event of data type dt for rec, made at the record's
// last update: for an event of results (sensitive, results-updated) it
// runs the model, once. updates are a results-updated event's message ids
// it updates, by destination (Snapshot.Updates); nil for other events. It
// returns the JSON to store and the model's version.
func Take(dt record.DataType, rec record.Record, updates map[string]string) (snap []byte, model string, err error) {
	s := Snapshot{Version: version, Record: rec, At: rec.UpdatedAt, Model: score.Version}
	if dt == record.ResultsUpdated {
		s.Updates = updates
	}
	if dt.Results() {
		in := score.FromRecord(rec.Fields, assessedAt(rec))
		r := score.Compute(in)
		s.Inputs, s.Result = &in, &r
	}
	snap, err = json.Marshal(s)
	return snap, s.Model, err
}

// assessedAt is when the measurements were taken: at the assessment's
// completion, or at the save when it has none (as payload and fhir date
// them).
func assessedAt(rec record.Record) time.Time {
	if !rec.AssessmentCompletedAt.IsZero() {
		return rec.AssessmentCompletedAt
	}
	return rec.UpdatedAt
}

// ErrFormat: a format pads does not build.
var ErrFormat = errors.New("snapshot: unknown format")

// Body builds the body of format of the event of data type dt from its
// stored snapshot, for the destination of id destination: a
// results-updated body names the message it updates for that destination
// (none when the snapshot names none for it, as in an export).
func Body(format string, dt record.DataType, snap []byte, destination string) ([]byte, error) {
	var s Snapshot
	if err := json.Unmarshal(snap, &s); err != nil {
		return nil, fmt.Errorf("snapshot: open: %w", err)
	}
	if s.Version != version {
		return nil, fmt.Errorf("snapshot: layout %d, want %d", s.Version, version)
	}
	if dt.Results() && (s.Inputs == nil || s.Result == nil) {
		return nil, errors.New("snapshot: a sensitive event without its results")
	}
	var in score.Inputs
	var r score.Result
	if s.Inputs != nil && s.Result != nil {
		in, r = *s.Inputs, *s.Result
	}
	updates := s.Updates[destination]
	switch format {
	case FormatSeedJSON:
		p := payload.FromStored(dt, s.Record, s.At, in, r, s.Model)
		if dt == record.ResultsUpdated {
			p = payload.Update{Sensitive: p.(payload.Sensitive), UpdatesMessageID: nonEmpty(updates)}
		}
		return json.Marshal(p)
	case FormatFHIR:
		b := fhir.FromStored(dt, s.Record, s.At, in, r, s.Model)
		if dt == record.ResultsUpdated && updates != "" {
			b.Meta.Tag = append(b.Meta.Tag, fhir.Coding{System: fhir.UpdatesSystem, Code: updates})
		}
		return json.Marshal(b)
	}
	return nil, fmt.Errorf("%w %q", ErrFormat, format)
}

// Updates returns the message id a results-updated snapshot names for the
// destination of id destination: the delivery whose results it replaces;
// "" when it names none.
func Updates(snap []byte, destination string) (string, error) {
	var s struct {
		Updates map[string]string `json:"updates"`
	}
	if err := json.Unmarshal(snap, &s); err != nil {
		return "", fmt.Errorf("snapshot: open: %w", err)
	}
	return s.Updates[destination], nil
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
