package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/operator"
)

// tokens runs the token commands:
//
//	pads tokens revoke --client ID [--config FILE]
//
// revoke refuses every token of the client issued until now, on every
// process serving the config's database, within auth.RevocationBound
// and for good (it is kept in the database). Tokens issued afterwards
// work.
func tokens(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "revoke" {
		return errUsage
	}
	fs := newFlags("tokens revoke", stdout, stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	client := fs.String("client", "", "the client whose tokens to revoke (required)")
	if err := fs.parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 || *client == "" {
		return usageOf(fs.FlagSet)
	}
	path, cfg, err := cliConfig(*configPath, getenv)
	if err != nil {
		return err
	}
	if cfg.Client(*client) == nil {
		return fmt.Errorf("no client %q in %s", *client, path)
	}
	st, _, err := cliStore(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	before, err := operator.New(st, time.Now, nil).RevokeTokens(ctx, cliActor(getenv), *client)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked the tokens of client %q issued before %s: every pads serving this database refuses them within %v\n",
		*client, before.Format(time.RFC3339), auth.RevocationBound)
	return nil
}
