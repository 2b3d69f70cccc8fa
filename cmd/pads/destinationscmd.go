package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/sns"
	"github.com/pads-dev/pads/internal/deliver/webhook"
	"github.com/pads-dev/pads/internal/operator"
)

// destinationsCmd runs the destination commands:
//
//	pads destinations list
//	pads destinations test CLIENT/DESTINATION
//
// Each takes --config FILE (default: ./pads-data/pads.yaml).
func destinationsCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "list", "test":
	default:
		return errUsage
	}
	fs := newFlags("destinations "+args[0], stdout, stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	pos, err := fs.parseMixed(args[1:])
	if err != nil {
		return err
	}
	switch args[0] {
	case "list":
		_, cfg, err := cliConfig(*configPath, getenv)
		if err != nil {
			return err
		}
		printDestinations(stdout, cfg)
		return nil
	case "test":
		if len(pos) != 1 {
			return errors.New("give one destination as CLIENT/DESTINATION (see pads destinations list)")
		}
		return testDestination(ctx, *configPath, pos[0], getenv, stdout, stderr)
	}
	return errUsage
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
	senders := map[string]deliver.Sender{"webhook": webhook.NewSender(cfg.ServiceName, version), "sns": sns.NewSender()}
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

// printDestinations lists the config's destinations: where each sends,
// what it gets and how fast.
func printDestinations(w io.Writer, cfg *config.Config) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DESTINATION\tENVIRONMENT\tTYPE\tTO\tFORMAT\tEVENTS\tMAX/S")
	for _, cl := range cfg.Clients {
		for _, d := range cl.Destinations {
			rate := "-"
			if d.MaxPerSecond > 0 {
				rate = fmt.Sprint(d.MaxPerSecond)
			}
			fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cl.ID, d.ID, d.Environment, d.Type, d.Host(), d.Format,
				strings.Join(d.Events, ","), rate)
		}
	}
	tw.Flush()
}
