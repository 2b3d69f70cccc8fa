package operator

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
)

// The audit log's action names of a patient's lifecycle. Their targets
// name the patient only by a keyed reference (PatientTarget).
const (
	ActionErase  = "records.erase"
	ActionExport = "records.export"
)

// ErrUnknownClient: the client of an erasure or an export is not in the
// config (the CLI exits 1, the admin API answers 404).
var ErrUnknownClient = errors.New("unknown client")

// ErrNoLifecycle is the answer of a service made without WithPatients.
var ErrNoLifecycle = errors.New("this operator service cannot act on patients (no WithPatients)")

// Patients is what the service needs to act on one patient: the keys of
// the audit log's references, and the clients of the config in force.
type Patients struct {
	Keys *seal.Keyring
	// Known reports whether a client is in the config in force.
	Known func(clientID string) bool
	// Route returns the client's funnels of the environment of its
	// destination id, the events that destination takes, and whether the
	// config in force has that destination (DeliverPatient).
	Route func(clientID, destination string) (funnels, events []string, ok bool)
}

// WithPatients returns the service able to erase and export patients.
func (s *Service) WithPatients(p Patients) *Service {
	s.patients = p
	return s
}

// PatientRequest names one patient of one client: by PatientUUID (every
// assessment type) or by Email (every record of that email), not both.
type PatientRequest struct {
	ClientID    string
	PatientUUID string
	Email       string
}

// check validates r and returns the patient it names, normalized.
func (s *Service) check(r PatientRequest) (store.Patient, error) {
	switch {
	case r.ClientID == "":
		return store.Patient{}, invalid("a client id is required")
	case len(r.ClientID) > maxID:
		return store.Patient{}, invalid("client ids are at most %d characters", maxID)
	case (r.PatientUUID == "") == (r.Email == ""):
		return store.Patient{}, invalid("give a patient uuid or an email, not both")
	}
	p := store.Patient{ClientID: r.ClientID}
	if r.PatientUUID != "" {
		u, err := uuid.Parse(r.PatientUUID)
		if err != nil || len(r.PatientUUID) != 36 || u == uuid.Nil {
			return store.Patient{}, invalid("the patient uuid must be a UUID in 8-4-4-4-12 hexadecimal form")
		}
		p.PatientUUID = u.String()
	} else {
		a, err := mail.ParseAddress(r.Email)
		if err != nil || a.Name != "" || a.Address != r.Email || len(r.Email) > 320 || strings.Count(r.Email, "@") != 1 {
			return store.Patient{}, invalid("the email must be a single email address")
		}
		p.Email = record.NormalizeEmail(r.Email)
	}
	if s.patients.Keys == nil || s.patients.Known == nil {
		return store.Patient{}, ErrNoLifecycle
	}
	if !s.patients.Known(p.ClientID) {
		return store.Patient{}, ErrUnknownClient
	}
	return p, nil
}

// PatientTarget is how the audit log names a patient: the client in clear
// and the patient by its keyed reference (seal.Keyring.Ref), never the
// uuid or the email, so the log, which erasure leaves whole, names nobody
// once the patient is erased.
func PatientTarget(keys *seal.Keyring, p store.Patient) string {
	if p.PatientUUID != "" {
		return "client:" + p.ClientID + " " + keys.Ref("patient", p.ClientID, strings.ToLower(p.PatientUUID))
	}
	return "client:" + p.ClientID + " " + keys.Ref("email", p.ClientID, record.NormalizeEmail(p.Email))
}

// Erase removes one patient's records under a client, with their events,
// bodies, deliveries (pending ones cancelled) and attempts; a patient with
// nothing stored is zero counts. Errors: *InvalidError, ErrUnknownClient.
func (s *Service) Erase(ctx context.Context, actor string, r PatientRequest) (store.Erased, error) {
	p, err := s.check(r)
	if err != nil {
		return store.Erased{}, err
	}
	if err := s.audit(ctx, actor, ActionErase, PatientTarget(s.patients.Keys, p)); err != nil {
		return store.Erased{}, err
	}
	n, err := s.store.Erase(ctx, p)
	if err != nil {
		return store.Erased{}, fmt.Errorf("erase: %w", err)
	}
	return n, nil
}

// Export returns everything pads keeps of one patient under a client.
// Errors: *InvalidError, ErrUnknownClient.
func (s *Service) Export(ctx context.Context, actor string, r PatientRequest) ([]store.PatientRecord, error) {
	p, err := s.check(r)
	if err != nil {
		return nil, err
	}
	if err := s.audit(ctx, actor, ActionExport, PatientTarget(s.patients.Keys, p)); err != nil {
		return nil, err
	}
	recs, err := s.store.Export(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return recs, nil
}
