package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/sns"
	"github.com/pads-dev/pads/internal/deliver/webhook"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
)

// destinationsCmd runs the destination commands:
//
//	pads destinations list
//	pads destinations test CLIENT/DESTINATION
//	pads destinations pause CLIENT/DESTINATION [--reason TEXT]
//	pads destinations resume CLIENT/DESTINATION
//
// Each takes --config FILE (default: ./pads-data/pads.yaml) and works
// beside a running pads on the same database.
func destinationsCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	fs := newFlags("destinations "+args[0], stdout, stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	var reason string
	switch args[0] {
	case "list", "test", "resume":
	case "pause":
		fs.StringVar(&reason, "reason", "", "why, for the console, the list and the audit log (one line)")
	default:
		return errUsage
	}
	pos, err := fs.parseMixed(args[1:])
	if err != nil {
		return err
	}
	if args[0] == "test" {
		if len(pos) != 1 {
			return errors.New("give one destination as CLIENT/DESTINATION (see pads destinations list)")
		}
		return testDestination(ctx, *configPath, pos[0], getenv, stdout, stderr)
	}
	// Listing, pausing and resuming send nothing to destinations: their
	// secrets need not be here (an operator event is sent only when its
	// endpoint's secret is).
	_, cfg, err := cliConfigForReading(*configPath, getenv)
	if err != nil {
		return err
	}
	st, _, err := cliStore(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	ops := operator.New(st, time.Now, nil).WithConfig(func() *config.Config { return cfg }).WithEvents(publishNow(cfg, logger))
	actor := cliActor()
	if args[0] == "list" {
		states, err := ops.Destinations(ctx, actor)
		if err != nil {
			return err
		}
		printDestinations(stdout, states)
		return nil
	}
	if len(pos) != 1 {
		return errors.New("give one destination as CLIENT/DESTINATION (see pads destinations list)")
	}
	ref, err := operator.ParseDestination(pos[0])
	if err != nil {
		return err
	}
	return pauseOrResume(ctx, ops, actor, args[0], ref, reason, cfg.Path, stdout)
}

// pauseOrResume pauses or resumes ref and says what it did.
func pauseOrResume(ctx context.Context, ops *operator.Service, actor, verb string, ref store.DestinationRef, reason, path string, stdout io.Writer) error {
	name := ref.ClientID + "/" + ref.ID
	var changed bool
	var err error
	if verb == "pause" {
		changed, err = ops.PauseDestination(ctx, actor, ref, reason)
	} else {
		changed, err = ops.ResumeDestination(ctx, actor, ref)
	}
	switch {
	case errors.Is(err, operator.ErrNoDestination):
		return fmt.Errorf("no destination %s in %s (see pads destinations list)", name, path)
	case err != nil:
		return err
	case verb == "pause" && changed:
		fmt.Fprintf(stdout, "paused %s: it is sent nothing and its deliveries wait (every pads serve honours it within %s)\n", name, deliver.PauseRefresh)
	case verb == "pause":
		fmt.Fprintf(stdout, "%s was paused already\n", name)
	case changed:
		fmt.Fprintf(stdout, "resumed %s: its waiting deliveries go, in order, within %s\n", name, deliver.PauseRefresh)
	default:
		fmt.Fprintf(stdout, "%s was not paused\n", name)
	}
	return nil
}

// testDestination sends a test event and prints the answer; it fails
// (exit 1) unless the destination took it.
func testDestination(ctx context.Context, configPath, name string, getenv func(string) string, stdout, stderr io.Writer) error {
	ref, err := operator.ParseDestination(name)
	if err != nil {
		return err
	}
	_, cfg, err := cliConfig(configPath, getenv)
	if err != nil {
		return err
	}
	st, _, err := cliStore(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	senders := map[string]deliver.Sender{"webhook": webhookSender(cfg), "sns": sns.NewSender()}
	ops := operator.New(st, time.Now, nil).WithTester(destinationTester(deliver.NewDestinations(cfg, senders), senders))
	res, err := ops.TestSend(ctx, cliActor(), ref)
	if errors.Is(err, operator.ErrNoDestination) {
		return fmt.Errorf("no destination %s in %s (see pads destinations list)", name, cfg.Path)
	}
	if err != nil {
		return err
	}
	printTestResult(stdout, name, res)
	if !res.OK() {
		return fmt.Errorf("the test event to %s was not taken (%s)", name, res.ErrorClass)
	}
	return nil
}

func printTestResult(w io.Writer, name string, res operator.TestResult) {
	status := "no answer"
	if res.StatusCode != 0 {
		status = fmt.Sprintf("HTTP %d", res.StatusCode)
	}
	outcome := "taken"
	if !res.OK() {
		outcome = "NOT taken: " + res.ErrorClass
	}
	fmt.Fprintf(w, "test event %s to %s: %s, %s in %s\n", res.MessageID, name, outcome, status, res.Duration.Round(time.Millisecond))
	if len(res.Response) > 0 {
		fmt.Fprintf(w, "answer (first 1 KiB): %s\n", strings.TrimSpace(string(res.Response)))
	}
}

// printDestinations lists the destinations: where each sends, what it
// gets, how fast, and whether it is paused.
func printDestinations(w io.Writer, states []operator.DestinationState) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DESTINATION\tENVIRONMENT\tTYPE\tTO\tFORMAT\tEVENTS\tMAX/S\tSTATE")
	for _, s := range states {
		env, typ, to, format, events, rate := "-", "-", "(not in the config)", "-", "-", "-"
		if d := s.Config; d != nil {
			env, typ, to, format, events = d.Environment, d.Type, d.Host(), d.Format, strings.Join(d.Events, ",")
			if d.MaxPerSecond > 0 {
				rate = fmt.Sprint(d.MaxPerSecond)
			}
		}
		state := "active"
		if p := s.Pause; p != nil {
			state = fmt.Sprintf("paused since %s by %s", p.At.Format(time.RFC3339), p.By)
			if p.Reason != "" {
				state += ": " + p.Reason
			}
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ClientID, s.ID, env, typ, to, format, events, rate, state)
	}
	tw.Flush()
}

// webhookSender is the webhook sender of a command that sends (a test, an
// operator event).
func webhookSender(cfg *config.Config) deliver.Sender {
	return webhook.NewSender(cfg.ServiceName, version)
}
