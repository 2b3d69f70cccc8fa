package main

import (
	"fmt"
	"io"

	"github.com/pads-dev/pads/internal/config"
)

// keys prints fresh key material for the config.
func keys(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return errUsage
	}
	switch args[0] {
	case "api":
		key, digest := config.NewAPIKey()
		fmt.Fprintf(stdout, "API key (give it to the client, once): %s\nconfig entry:  - sha256: %s\n", key, digest)
	case "secret":
		fmt.Fprintln(stdout, config.NewSecret())
	default:
		return errUsage
	}
	return nil
}
