// Package save is the one service behind POST /patient/savePatientData:
// it routes a client's save (the funnel's owner and environment, the
// destinations of that environment, the client's subscription), finds the
// record the save changes, applies the rules of internal/record to it,
// snapshots the events it raises, and commits the outcome.
//
// The record is read and changed outside any write transaction, and the
// commit checks that it did not change meanwhile (store.ErrConflict); on a
// conflict the save starts over from a fresh read. So the work of a save
// (decryption, the rules, scoring, encryption) runs beside other saves,
// and the database's writer only writes.
package save

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// Errors of Save; callers compare with errors.Is.
var (
	// ErrForbidden: the funnel is unknown, or not a funnel of the client
	// (the contract's 403 "Invalid Client"). Nothing was written.
	ErrForbidden = errors.New("save: unknown funnel or not the client's")
	// ErrBusy: the record kept changing under the save (other saves of it
	// committed first, maxAttempts times). Nothing was written; the client
	// may try again.
	ErrBusy = errors.New("save: the record kept changing; try again")
)

// maxAttempts bounds how often a save starts over after a conflict. Each
// conflict means another save of the same record committed, so a record
// saved by n callers at once needs at most n attempts.
const maxAttempts = 100

// Snapshotter makes what an event of data type dt keeps for rec: its
// format-neutral snapshot and the version of the scoring model that made
// its results (internal/snapshot.Take). updates, for a results-updated
// event only, are the message ids it updates by destination id.
type Snapshotter func(dt record.DataType, rec record.Record, updates map[string]string) (snapshot []byte, model string, err error)

// Deps is what the service uses; New takes nothing else.
type Deps struct {
	Store store.Records
	// Config returns the config in force; it changes on reload.
	Config func() *config.Config
	// Snapshot makes the one thing each event keeps: a format-neutral
	// snapshot (the record's values and the results computed now, with
	// their model), from which each delivery attempt builds the body of
	// its destination's current format. No body is built at the save.
	Snapshot Snapshotter
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Enqueued, when set, is told the destinations a save enqueued
	// deliveries for (it wakes the dispatcher).
	Enqueued func(destinations ...store.DestinationRef)
	// RedFlag, when set, is told the client of each committed
	// results-updated event that brings a red flag the results it updates
	// did not have, whether or not a destination gets the event (the
	// operator's metric; never a patient or a value).
	RedFlag func(client string)
}

// Service saves records.
type Service struct{ d Deps }

// New returns the save service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Result says what a save did.
type Result struct {
	PatientUUID string
	Created     bool
	// Raised lists the events the save raised, in order.
	Raised []record.DataType
	// Deliveries counts the deliveries it enqueued.
	Deliveries int
}

// Save saves req, a validated request of the client clientID, by the
// contract's create-or-update rules, and returns once it is durably
// committed. Errors: ErrForbidden, ErrBusy, and the store's (ErrClosed, a
// context error, a database error); after any error nothing was written.
func (s *Service) Save(ctx context.Context, clientID string, req *intake.Request) (Result, error) {
	cfg := s.d.Config()
	client := cfg.Client(clientID)
	funnel, owner := cfg.Funnel(req.FunnelID)
	if client == nil || owner != client {
		return Result{}, ErrForbidden
	}
	// Results of a staging funnel go to staging destinations only, each
	// event to the destinations whose events include it.
	candidates := client.DestinationsFor(funnel.Environment)
	var dests []string
	for _, d := range candidates {
		dests = append(dests, d.ID)
	}
	sv := record.Save{ClientID: clientID, AssessmentType: req.AssessmentType, PatientUUID: req.PatientUUID,
		Email: req.Email, FunnelID: req.FunnelID, Patch: req.Patch, FullSubscription: client.Full()}
	lookup := store.Lookup{ClientID: clientID, AssessmentType: req.AssessmentType, PatientUUID: req.PatientUUID, Email: req.Email}
	// Version 7: time-ordered, so records pads names cluster in the key
	// index. Used only if the save creates a record without a given uuid.
	newUUID := uuid.Must(uuid.NewV7()).String()

	for range maxAttempts {
		prev, err := s.d.Store.Find(ctx, lookup)
		if err != nil {
			return Result{}, err
		}
		var stored *record.Record
		if prev != nil {
			stored = &prev.Record
		}
		change := record.Apply(stored, sv, s.d.Now().UTC(), newUUID)
		events, err := s.events(change, candidates)
		if err != nil {
			return Result{}, err
		}
		update, redFlag, err := s.update(ctx, client, prev, change.Record, candidates)
		if err != nil {
			return Result{}, err
		}
		raised := change.Raised
		if update != nil {
			events, raised = append(events, *update), append(slices.Clip(raised), record.ResultsUpdated)
		}
		done, err := s.d.Store.Commit(ctx, store.Commit{Lookup: lookup, Previous: prev, Record: change.Record,
			Events: events, Destinations: dests})
		if errors.Is(err, store.ErrConflict) {
			continue // another save of this record committed first: start over from it
		}
		if err != nil {
			return Result{}, err
		}
		if redFlag && s.d.RedFlag != nil {
			s.d.RedFlag(clientID)
		}
		if done.Deliveries > 0 && s.d.Enqueued != nil {
			var refs []store.DestinationRef
			for _, e := range events {
				for _, id := range e.Destinations {
					refs = append(refs, store.DestinationRef{ClientID: clientID, ID: id})
				}
			}
			s.d.Enqueued(refs...)
		}
		return Result{PatientUUID: change.Record.PatientUUID, Created: change.Created, Raised: raised,
			Deliveries: done.Deliveries}, nil
	}
	return Result{}, ErrBusy
}

// events takes the snapshot of each event a change
// raises, from the record as the save leaves it, and names the
// destinations of candidates (the funnel environment's) whose events
// include it. Per-record order holds among the events one destination
// gets: they are raised, and enqueued, in order.
func (s *Service) events(c record.Change, candidates []*config.Destination) ([]store.NewEvent, error) {
	var out []store.NewEvent
	for _, dt := range c.Raised {
		to := []string{} // not nil: this event's own destinations, maybe none
		for _, d := range candidates {
			if d.Gets(string(dt)) {
				to = append(to, d.ID)
			}
		}
		snap, model, err := s.d.Snapshot(dt, c.Record, nil)
		if err != nil {
			return nil, fmt.Errorf("snapshot %s event: %w", dt, err)
		}
		out = append(out, store.NewEvent{DataType: dt, Model: model, Payload: snap, Snapshot: true, Destinations: to})
	}
	return out, nil
}
