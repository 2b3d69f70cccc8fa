package operator_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// recordingLifecycle is a store that records the erasures and exports
// that reach it.
type recordingLifecycle struct {
	store.Store
	erased, exported []store.Patient
}

func (r *recordingLifecycle) Erase(_ context.Context, p store.Patient) (store.Erased, error) {
	r.erased = append(r.erased, p)
	return store.Erased{Records: 1}, nil
}

func (r *recordingLifecycle) Export(_ context.Context, p store.Patient) ([]store.PatientRecord, error) {
	r.exported = append(r.exported, p)
	return nil, nil
}

func (r *recordingLifecycle) Sweep(context.Context, store.SweepRequest) (store.Swept, error) {
	return store.Swept{}, nil
}

const patientUUID = "5F0C6A4E-3B1D-4D6E-9A52-2F7C1E0B9D41"

func TestErasureAndExportAreAuditedByAKeyedReferenceOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := &recordingLifecycle{Store: openStore(t)}
	keys := storetest.Keyring(t, "e1")
	ops := operator.New(st, nil, nil).WithPatients(operator.Patients{Keys: keys, Known: func(id string) bool { return id == "acme" }})

	if _, err := ops.Erase(ctx, "cli:alice", operator.PatientRequest{ClientID: "acme", PatientUUID: patientUUID}); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Export(ctx, "cli:alice", operator.PatientRequest{ClientID: "acme", Email: " Ada@Example.com"}); err == nil {
		t.Fatal("an email with a leading space was taken")
	}
	if _, err := ops.Export(ctx, "cli:alice", operator.PatientRequest{ClientID: "acme", Email: "Ada@Example.com"}); err != nil {
		t.Fatal(err)
	}
	if len(st.erased) != 1 || st.erased[0].PatientUUID != strings.ToLower(patientUUID) {
		t.Fatalf("erased %+v, want the patient's uuid in lower case", st.erased)
	}
	if len(st.exported) != 1 || st.exported[0].Email != "ada@example.com" {
		t.Fatalf("exported %+v, want the normalized email", st.exported)
	}
	log, err := st.AuditLog(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		operator.ActionErase:  "client:acme " + keys.Ref("patient", "acme", strings.ToLower(patientUUID)),
		operator.ActionExport: "client:acme " + keys.Ref("email", "acme", "ada@example.com"),
	}
	for _, e := range log {
		if w, ok := want[e.Action]; ok {
			if e.Target != w {
				t.Errorf("%s audited with target %q, want %q", e.Action, e.Target, w)
			}
			delete(want, e.Action)
		}
		low := strings.ToLower(e.Target)
		if strings.Contains(low, strings.ToLower(patientUUID)) || strings.Contains(low, "ada@") || strings.Contains(low, "example.com") {
			t.Errorf("audit entry %q names the patient in clear", e.Target)
		}
	}
	if len(want) != 0 {
		t.Errorf("not audited: %v", want)
	}
}

func TestErasureRefusesBadRequestsAndUnknownClientsBeforeAuditing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name    string
		r       operator.PatientRequest
		unknown bool
	}{
		{"no client", operator.PatientRequest{PatientUUID: patientUUID}, false},
		{"neither uuid nor email", operator.PatientRequest{ClientID: "acme"}, false},
		{"both uuid and email", operator.PatientRequest{ClientID: "acme", PatientUUID: patientUUID, Email: "a@example.com"}, false},
		{"not a uuid", operator.PatientRequest{ClientID: "acme", PatientUUID: "42"}, false},
		{"the nil uuid", operator.PatientRequest{ClientID: "acme", PatientUUID: "00000000-0000-0000-0000-000000000000"}, false},
		{"not an email", operator.PatientRequest{ClientID: "acme", Email: "Ada <a@example.com>"}, false},
		{"unknown client", operator.PatientRequest{ClientID: "globex", PatientUUID: patientUUID}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := &recordingLifecycle{Store: openStore(t)}
			ops := operator.New(st, nil, nil).WithPatients(operator.Patients{Keys: storetest.Keyring(t, "e1"),
				Known: func(id string) bool { return id == "acme" }})
			_, err := ops.Erase(ctx, "cli:alice", tt.r)
			if _, invalid := operator.IsInvalid(err); invalid == tt.unknown {
				t.Fatalf("err = %v, want invalid: %v", err, !tt.unknown)
			}
			if tt.unknown && !errors.Is(err, operator.ErrUnknownClient) {
				t.Fatalf("err = %v, want ErrUnknownClient", err)
			}
			if log, _ := st.AuditLog(ctx, 10); len(log) != 0 || len(st.erased) != 0 {
				t.Fatalf("a refused erasure was audited (%v) or ran (%v)", log, st.erased)
			}
		})
	}
}
