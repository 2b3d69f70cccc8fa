package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/store"
)

// deliveries runs the operator commands:
//
//	pads deliveries list [--status pending|delivered|failed] [--client ID] [--limit N]
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
	fs := flag.NewFlagSet("deliveries "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	status := fs.String("status", "", "list: only deliveries in this state (pending, delivered, failed)")
	client := fs.String("client", "", "list, replay --failed: only this client's deliveries")
	limit := fs.Int("limit", 50, "list: at most this many, newest first")
	failed := fs.Bool("failed", false, "replay: every failed delivery updated since --since")
	since := fs.String("since", "", "replay --failed: RFC 3339 time or a duration ago (e.g. 24h)")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return errUsage
	}
	st, err := openForCLI(ctx, *configPath, getenv, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	audit := func(action, target string) error { return cliAudit(ctx, st, getenv, action, target) }
	switch args[0] {
	case "list":
		if *status != "" && *status != store.Pending && *status != store.Delivered && *status != store.Failed {
			return fmt.Errorf("--status must be pending, delivered or failed")
		}
		if err := audit("deliveries.list", fmt.Sprintf("status=%q client=%q", *status, *client)); err != nil {
			return err
		}
		ds, err := st.Deliveries(ctx, store.DeliveryFilter{State: *status, ClientID: *client, Limit: *limit})
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
		if err := audit("deliveries.show", fmt.Sprintf("delivery:%d", id)); err != nil {
			return err
		}
		d, attempts, err := st.Delivery(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no delivery %d", id)
		}
		if err != nil {
			return err
		}
		printDelivery(stdout, d, attempts)
		return nil
	case "replay":
		req := store.ReplayRequest{Now: time.Now(), ClientID: *client}
		if *failed {
			if req.Since, err = parseSince(*since, req.Now); err != nil {
				return err
			}
		} else if req.ID, err = deliveryID(pos); err != nil {
			return err
		}
		target := fmt.Sprintf("delivery:%d", req.ID)
		if req.ID == 0 {
			target = fmt.Sprintf("failed since %s client=%q", req.Since.UTC().Format(time.RFC3339), *client)
		}
		if err := audit("deliveries.replay", target); err != nil {
			return err
		}
		n, err := st.Replay(ctx, req)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "replayed %d deliveries (same message ids, new attempt series)\n", n)
		return nil
	}
	return errUsage
}

// cliAudit records an operator command in the audit log before it runs,
// as "cli:<login name>".
func cliAudit(ctx context.Context, st store.Store, getenv func(string) string, action, target string) error {
	who := getenv("USER")
	if who == "" {
		who = "unknown"
	}
	if err := st.Audit(ctx, store.AuditEntry{At: time.Now().UTC(), Actor: "cli:" + who, Action: action, Target: target}); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// audit prints the audit log: pads audit [--limit N] [--config FILE].
func auditCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	limit := fs.Int("limit", 50, "at most this many entries, newest first")
	if err := fs.Parse(args); err != nil || *limit < 1 {
		return errUsage
	}
	st, err := openForCLI(ctx, *configPath, getenv, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := cliAudit(ctx, st, getenv, "audit.read", ""); err != nil {
		return err
	}
	log, err := st.AuditLog(ctx, *limit)
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

func openForCLI(ctx context.Context, flagValue string, getenv func(string) string, stderr io.Writer) (store.Store, error) {
	path, err := existingConfig(flagValue)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(path, getenv)
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	keys, err := loadKeys(cfg, logger)
	if err != nil {
		return nil, err
	}
	return openStore(ctx, cfg, keys, nil, logger)
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

func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("replay --failed needs --since (RFC 3339 time or a duration such as 24h)")
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--since %q is neither an RFC 3339 time nor a duration", s)
	}
	return t, nil
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
	fmt.Fprintf(w, "delivery %d\n  message id:  %s\n  client:      %s\n  patient:     %s (%s)\n  funnel:      %s\n  data type:   %s\n  destination: %s\n  state:       %s\n  series:      %d\n",
		d.ID, d.MessageID, d.Key.ClientID, d.Key.PatientUUID, d.Key.AssessmentType, d.FunnelID, d.DataType, d.Destination, d.State, d.Series)
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
