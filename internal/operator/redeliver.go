package operator

import (
	"context"
	"errors"

	"github.com/pads-dev/pads/internal/store"
)

// ActionDeliverPatient is the audit log's action of DeliverPatient; its
// target names the patient by its keyed reference (PatientTarget) and the
// destination.
const ActionDeliverPatient = "deliveries.deliver_patient"

// PatientDelivery asks for one patient's results at one destination of
// its client: the events of its records (of AssessmentType, or every
// type) that have no delivery there yet.
type PatientDelivery struct {
	ClientID       string
	PatientUUID    string
	AssessmentType string
	Destination    string
}

// DeliverPatient enqueues a delivery to d.Destination of each of the
// patient's results that has none there: what a record saved while its
// environment had no destination needs once one exists. Only records of
// the destination's environment go (a staging record never reaches a
// production destination). Audited before it runs. Errors: *InvalidError,
// ErrUnknownClient, ErrNoDestination, store.ErrNotFound (no record of that
// patient).
func (s *Service) DeliverPatient(ctx context.Context, actor string, d PatientDelivery) (store.Redelivered, error) {
	p, err := s.check(PatientRequest{ClientID: d.ClientID, PatientUUID: d.PatientUUID})
	if err != nil {
		return store.Redelivered{}, err
	}
	if len(d.AssessmentType) > maxID {
		return store.Redelivered{}, invalid("assessment types are at most %d characters", maxID)
	}
	if d.Destination == "" {
		return store.Redelivered{}, invalid("a destination id is required")
	}
	if s.patients.Route == nil {
		return store.Redelivered{}, errors.New("this process cannot deliver a patient's results")
	}
	funnels, events, ok := s.patients.Route(p.ClientID, d.Destination)
	if !ok {
		return store.Redelivered{}, ErrNoDestination
	}
	rd, ok := s.store.(store.Redeliverer)
	if !ok {
		return store.Redelivered{}, errors.New("this database cannot deliver a patient's results")
	}
	ref := store.DestinationRef{ClientID: p.ClientID, ID: d.Destination}
	if err := s.audit(ctx, actor, ActionDeliverPatient, PatientTarget(s.patients.Keys, p)+" "+destinationTarget(ref)); err != nil {
		return store.Redelivered{}, err
	}
	n, err := rd.DeliverPatient(ctx, store.PatientDelivery{ClientID: p.ClientID, PatientUUID: p.PatientUUID,
		AssessmentType: d.AssessmentType, Destination: d.Destination, Funnels: funnels, Events: events, Now: s.now().UTC()})
	if err == nil && n.Enqueued > 0 && s.wake != nil {
		s.wake()
	}
	return n, err
}
