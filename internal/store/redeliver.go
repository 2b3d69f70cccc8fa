package store

import (
	"context"
	"time"
)

// Redeliverer delivers a patient's results to a destination that had none
// of them: the events of records saved while their environment had no
// destination (or before this one was added) are kept with their
// payloads, and get a delivery now.
type Redeliverer interface {
	// DeliverPatient enqueues a pending delivery to r.Destination for
	// each event of the patient's records (of r.AssessmentType, or every
	// type) raised through one of r.Funnels that has no delivery to that
	// destination yet, oldest first, in one transaction. Events whose
	// body retention removed are counted, not delivered. Errors:
	// ErrNotFound when the client has no record of that patient.
	DeliverPatient(ctx context.Context, r PatientDelivery) (Redelivered, error)
}

// PatientDelivery asks for a patient's results at one destination.
type PatientDelivery struct {
	ClientID       string
	PatientUUID    string
	AssessmentType string // "": every assessment type of the patient
	Destination    string // the destination's id
	// Funnels are the client's funnels of the destination's environment:
	// only their events go there (a staging record never goes to a
	// production destination).
	Funnels []string
	// Events are the event types the destination takes (its
	// destinations[].events): only events of those types go, so a
	// destination gets no results-updated event it did not ask for.
	// Empty: every type.
	Events []string
	Now    time.Time
}

// Redelivered says what DeliverPatient found and did.
type Redelivered struct {
	Events   int // the patient's events through Funnels
	Enqueued int // deliveries enqueued now
	Already  int // events that had a delivery to the destination
	Gone     int // events whose body retention removed
}
