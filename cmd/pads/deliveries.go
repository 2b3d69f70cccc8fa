package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
)

// deliveries runs the operator commands:
//
//	pads deliveries list [--status S] [--client ID] [--destination ID] [--patient UUID] [--message MSG_ID] [--limit N]
//	pads deliveries show ID
//	pads deliveries replay ID
//	pads deliveries replay --failed --since TIME [--client ID]
//
// Each takes --config FILE (default: ./pads-data/pads.yaml) and works
// beside a running pads on the same database.
func deliveries(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	fs := newFlags("deliveries "+args[0], stdout, stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	var status, client, since, patient, destination, assessment, message string
	var limit int
	var failed bool
	switch args[0] {
	case "list":
		fs.StringVar(&status, "status", "", "only deliveries in this state (pending, delivered, failed)")
		fs.StringVar(&client, "client", "", "only this client's deliveries")
		fs.StringVar(&patient, "patient", "", "only the deliveries of this patient uuid's records (audited by a keyed reference)")
		fs.StringVar(&message, "message", "", "only the delivery of this message id (webhook-id, msg_...)")
		fs.StringVar(&destination, "destination", "", "only deliveries to this destination id (with --client where ids repeat across clients)")
		fs.IntVar(&limit, "limit", operator.DefaultLimit, "at most this many, newest first")
	case "show":
	case "replay":
		fs.BoolVar(&failed, "failed", false, "every failed delivery updated since --since")
		fs.StringVar(&since, "since", "", "with --failed: RFC 3339 time or a duration ago (e.g. 24h)")
		fs.StringVar(&client, "client", "", "with --failed: only this client's deliveries; with --patient: the patient's client")
		fs.StringVar(&patient, "patient", "", "deliver this patient's results (uuid) to --destination: each one it has not had")
		fs.StringVar(&destination, "destination", "", "with --patient: the id of the client's destination")
		fs.StringVar(&assessment, "assessment-type", "", "with --patient: only the record of this assessment type (default: every one)")
	default:
		return errUsage
	}
	pos, err := fs.parseMixed(args[1:])
	if err != nil {
		return err
	}
	open := operatorForCLI
	if patient != "" {
		open = patientOperator // names the patient in the audit log by a keyed reference
	}
	ops, closeStore, err := open(ctx, *configPath, getenv, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	actor := cliActor()
	switch args[0] {
	case "list":
		ds, err := ops.List(ctx, actor, operator.ListRequest{State: status, ClientID: client, Destination: destination,
			PatientUUID: patient, MessageID: message, Limit: limit})
		if err != nil {
			return err
		}
		printDeliveries(stdout, ds)
		return nil
	case "show":
		id, err := deliveryID(pos)
		if err != nil {
			return err
		}
		d, attempts, err := ops.Show(ctx, actor, id)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no delivery %d", id)
		}
		if err != nil {
			return err
		}
		printDelivery(stdout, d, attempts)
		return nil
	}
	if patient != "" || destination != "" {
		if failed || len(pos) > 0 || client == "" || patient == "" || destination == "" {
			return usageOf(fs.FlagSet)
		}
		return deliverPatient(ctx, ops, actor, operator.PatientDelivery{ClientID: client, PatientUUID: patient,
			AssessmentType: assessment, Destination: destination}, stdout)
	}
	var n int
	if failed {
		from, err := operator.ParseSince(since, time.Now())
		if err != nil {
			return err
		}
		if n, err = ops.ReplayFailed(ctx, actor, from, client); err != nil {
			return err
		}
	} else {
		id, err := deliveryID(pos)
		if err != nil {
			return err
		}
		if n, err = ops.Replay(ctx, actor, id); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "replayed %d deliveries (same message ids, new attempt series; each sends the snapshot its event stored, "+
		"with that snapshot's model version, not re-scored)\n", n)
	return nil
}

// cliActor names the operator in the audit log: "cli:<login name>", the
// name of the process's real user id in the system's user database, or
// "cli:uid:<id>" when it has none. Not $USER: the environment is the
// caller's to write, the user id is the system's.
func cliActor() string {
	return actorOfUID(os.Getuid(), user.LookupId)
}

func actorOfUID(uid int, lookup func(string) (*user.User, error)) string {
	id := strconv.Itoa(uid)
	if u, err := lookup(id); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli:uid:" + id
}

// audit prints the audit log: pads audit [--limit N] [--config FILE].
func auditCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("audit", stdout, stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	limit := fs.Int("limit", operator.DefaultLimit, "at most this many entries, newest first")
	if err := fs.parse(args); err != nil {
		return err
	}
	ops, closeStore, err := operatorForCLI(ctx, *configPath, getenv, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	log, err := ops.AuditLog(ctx, cliActor(), *limit)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAT\tACTOR\tACTION\tTARGET")
	for _, e := range log {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", e.ID, e.At.Format(time.RFC3339), e.Actor, e.Action, e.Target)
	}
	return tw.Flush()
}

// operatorForCLI opens the config's store beside a running pads and
// returns the operator service over it, and what closes the store.
func operatorForCLI(ctx context.Context, configPath string, getenv func(string) string, stderr io.Writer) (*operator.Service, func(), error) {
	_, cfg, err := cliConfigForReading(configPath, getenv)
	if err != nil {
		return nil, nil, err
	}
	st, _, err := cliStore(ctx, cfg, stderr)
	if err != nil {
		return nil, nil, err
	}
	return operator.New(st, time.Now, nil), func() { st.Close() }, nil
}

// cliConfig reads the config a maintenance command is given (--config, or
// the starter config when there is one) and returns its path with it.
func cliConfig(flagValue string, getenv func(string) string) (string, *config.Config, error) {
	path, err := existingConfig(flagValue)
	if err != nil {
		return "", nil, err
	}
	cfg, err := config.Load(path, getenv)
	return path, cfg, err
}

// cliConfigForReading is cliConfig for a command that sends nothing: the
// destinations' secrets need not be in its environment
// (config.LoadForReading).
func cliConfigForReading(flagValue string, getenv func(string) string) (string, *config.Config, error) {
	path, err := existingConfig(flagValue)
	if err != nil {
		return "", nil, err
	}
	cfg, err := config.LoadForReading(path, getenv)
	return path, cfg, err
}

// cliStore opens cfg's database with its keys for a maintenance command:
// its logs go to stderr, it keeps no metrics.
func cliStore(ctx context.Context, cfg *config.Config, stderr io.Writer) (store.Store, config.Keys, error) {
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	keys, err := loadKeys(cfg, logger)
	if err != nil {
		return nil, config.Keys{}, err
	}
	st, err := openStore(ctx, cfg, keys, nil, logger)
	return st, keys, err
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments ("show 12 --config f" as well as "show --config f 12").
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func deliveryID(pos []string) (int64, error) {
	if len(pos) != 1 {
		return 0, fmt.Errorf("give one delivery id (see pads deliveries list)")
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("delivery id %q is not a number", pos[0])
	}
	return id, nil
}

func printDeliveries(w io.Writer, ds []store.Delivery) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMESSAGE ID\tCLIENT\tDATA TYPE\tDESTINATION\tSTATE\tSERIES\tATTEMPTS\tUPDATED\tLAST ERROR")
	for _, d := range ds {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", d.ID, d.MessageID, d.Key.ClientID, d.DataType,
			d.Destination, d.State, d.Series, d.Attempts, d.UpdatedAt.Format(time.RFC3339), d.LastError)
	}
	tw.Flush()
}

func printDelivery(w io.Writer, d store.Delivery, attempts []store.Attempt) {
	fmt.Fprintf(w, "delivery %d\n  message id:  %s\n  client:      %s\n  patient:     %s (%s)\n  funnel:      %s\n  data type:   %s\n  model:       %s\n  destination: %s\n  state:       %s\n  series:      %d\n",
		d.ID, d.MessageID, d.Key.ClientID, d.Key.PatientUUID, d.Key.AssessmentType, d.FunnelID, d.DataType, d.Model, d.Destination, d.State, d.Series)
	if d.State == store.Pending {
		fmt.Fprintf(w, "  next try:    %s\n", d.NextAt.Format(time.RFC3339Nano))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSERIES\tATTEMPT\tSTARTED\tDURATION\tSTATUS\tERROR\tBY\tANSWER (first 1 KiB)")
	for _, a := range attempts {
		status := "-"
		if a.StatusCode != 0 {
			status = strconv.Itoa(a.StatusCode)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%q\n", a.Series, a.Number, a.StartedAt.Format(time.RFC3339Nano),
			a.Duration.Round(time.Microsecond), status, a.ErrorClass, a.Owner, a.Response)
	}
	tw.Flush()
}

// deliverPatient runs pads deliveries replay --client ID --patient UUID
// --destination ID: the patient's results the destination never had.
func deliverPatient(ctx context.Context, ops *operator.Service, actor string, d operator.PatientDelivery, stdout io.Writer) error {
	n, err := ops.DeliverPatient(ctx, actor, d)
	switch {
	case errors.Is(err, operator.ErrUnknownClient):
		return fmt.Errorf("no client %q in the config", d.ClientID)
	case errors.Is(err, operator.ErrNoDestination):
		return fmt.Errorf("client %q has no destination %q in the config: add it and reload first", d.ClientID, d.Destination)
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("client %q has no record of patient %s", d.ClientID, d.PatientUUID)
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "%d results of the patient through the destination's environment: %d enqueued for %s, %d had a delivery there already",
		n.Events, n.Enqueued, d.Destination, n.Already)
	if n.Gone > 0 {
		fmt.Fprintf(stdout, ", %d no longer have a body (retention)", n.Gone)
	}
	fmt.Fprintln(stdout)
	return nil
}
