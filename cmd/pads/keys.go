package main

import (
	"fmt"
	"io"

	"github.com/pads-dev/pads/internal/config"
)

// keys prints fresh key material for the config.
func keys(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	fs := newFlags("keys "+args[0], stdout, stderr)
	if err := fs.parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageOf(fs.FlagSet)
	}
	switch args[0] {
	case "api":
		key, digest := config.NewAPIKey()
		fmt.Fprintf(stdout, "API key (give it to the client, once): %s\nconfig entry:  - sha256: %s\n", key, digest)
	case "secret":
		fmt.Fprintln(stdout, config.NewSecret())
	case "whsec":
		fmt.Fprintln(stdout, config.NewWebhookSecret())
	default:
		return errUsage
	}
	return nil
}
