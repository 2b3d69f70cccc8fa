package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
)

// patientFlags are the flags that name one patient of one client.
type patientFlags struct {
	config, client, patient, email *string
}

func newPatientFlags(fs *flag.FlagSet) patientFlags {
	return patientFlags{
		config:  fs.String("config", "", "config file (default: ./pads-data/pads.yaml)"),
		client:  fs.String("client", "", "the client's id"),
		patient: fs.String("patient", "", "the patient's uuid (every assessment type)"),
		email:   fs.String("email", "", "the patient's email (every record of that email)"),
	}
}

func (f patientFlags) request() operator.PatientRequest {
	return operator.PatientRequest{ClientID: *f.client, PatientUUID: *f.patient, Email: *f.email}
}

// patientOperator opens the config's store and returns the operator
// service able to act on patients, and what closes the store.
func patientOperator(ctx context.Context, configPath string, getenv func(string) string, stderr io.Writer) (*operator.Service, func(), error) {
	_, cfg, err := cliConfigForReading(configPath, getenv)
	if err != nil {
		return nil, nil, err
	}
	st, keys, err := cliStore(ctx, cfg, stderr)
	if err != nil {
		return nil, nil, err
	}
	keyring, err := seal.NewKeyring(sealKeys(keys.Encryption))
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	ops := operator.New(st, time.Now, nil).WithPatients(patientsOf(keyring, func() *config.Config { return cfg }))
	return ops, func() { st.Close() }, nil
}

// patientsOf is what the operator service needs to act on patients: the
// audit references' keys, and the clients of the config in force.
func patientsOf(keys *seal.Keyring, current func() *config.Config) operator.Patients {
	return operator.Patients{Keys: keys, Known: func(id string) bool { return current().Client(id) != nil },
		Route: func(clientID, destination string) ([]string, []string, bool) {
			return route(current(), clientID, destination)
		}}
}

// route returns the funnels of the client whose environment is that of
// its destination, the events the destination takes, and whether the
// config has that destination.
func route(cfg *config.Config, clientID, destination string) (funnels, events []string, ok bool) {
	cl := cfg.Client(clientID)
	if cl == nil {
		return nil, nil, false
	}
	for _, d := range cl.Destinations {
		if d.ID != destination {
			continue
		}
		for _, f := range cl.Funnels {
			if f.Environment == d.Environment {
				funnels = append(funnels, f.ID)
			}
		}
		return funnels, d.Events, true
	}
	return nil, nil, false
}

// erase runs pads records erase --client ID (--patient UUID | --email EMAIL).
func erase(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("records erase", stdout, stderr)
	pf := newPatientFlags(fs.FlagSet)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageOf(fs.FlagSet)
	}
	ops, closeStore, err := patientOperator(ctx, *pf.config, getenv, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	n, err := ops.Erase(ctx, cliActor(), pf.request())
	if errors.Is(err, operator.ErrUnknownClient) {
		return fmt.Errorf("no client %q in the config", *pf.client)
	}
	if err != nil {
		return err
	}
	if n.Records == 0 {
		fmt.Fprintln(stdout, "already gone: nothing is stored for that patient under client", *pf.client, "(never saved, or erased before)")
		return nil
	}
	fmt.Fprintf(stdout, "erased: %d records, %d events with their bodies, %d deliveries (%d pending, cancelled), %d attempts\n",
		n.Records, n.Events, n.Deliveries, n.Cancelled, n.Attempts)
	return nil
}

// export runs pads records export --client ID (--patient UUID | --email
// EMAIL) --out FILE [--fhir].
func export(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("records export", stdout, stderr)
	pf := newPatientFlags(fs.FlagSet)
	out := fs.String("out", "", "the file to write (must not exist; created 0600)")
	fhir := fs.Bool("fhir", false, "add each result's FHIR R4 Bundle beside its JSON payload")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 || *out == "" {
		return usageOf(fs.FlagSet)
	}
	ops, closeStore, err := patientOperator(ctx, *pf.config, getenv, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	recs, err := ops.Export(ctx, cliActor(), pf.request())
	if errors.Is(err, operator.ErrUnknownClient) {
		return fmt.Errorf("no client %q in the config", *pf.client)
	}
	if err != nil {
		return err
	}
	doc := operator.NewExportDocument(*pf.client, recs, *fhir, time.Now())
	if err := writeExport(*out, doc); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %d records with %d results to %s\n", len(recs), results(recs), *out)
	return nil
}

func results(recs []store.PatientRecord) int {
	n := 0
	for _, r := range recs {
		n += len(r.Events)
	}
	return n
}

// writeExport writes doc to path, a new file created 0600, synced; on any
// error nothing is left at path.
func writeExport(path string, doc operator.ExportDocument) (err error) {
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("export: %w (the file must not exist)", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if _, err := f.Write(append(body, '\n')); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return f.Sync()
}
