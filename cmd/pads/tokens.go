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
//	pads tokens revoke --admin ID [--config FILE]
//
// revoke refuses every token of the client (or of the admin, on the admin
// API) issued until now, on every process serving the config's database,
// within auth.RevocationBound and for good (it is kept in the database).
// Tokens issued afterwards work.
func tokens(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "revoke" {
		return errUsage
	}
	fs := newFlags("tokens revoke", stdout, stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	client := fs.String("client", "", "the client whose tokens to revoke")
	admin := fs.String("admin", "", "the admin whose admin API tokens to revoke")
	if err := fs.parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 || (*client == "") == (*admin == "") {
		return usageOf(fs.FlagSet)
	}
	path, cfg, err := cliConfigForReading(*configPath, getenv)
	if err != nil {
		return err
	}
	kind, id := "client", *client
	if *admin != "" {
		kind, id = "admin", *admin
		if cfg.Admin(id) == nil {
			return fmt.Errorf("no admin %q in %s", id, path)
		}
	} else if cfg.Client(id) == nil {
		return fmt.Errorf("no client %q in %s", id, path)
	}
	st, _, err := cliStore(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	ops := operator.New(st, time.Now, nil)
	revoke := ops.RevokeTokens
	if kind == "admin" {
		revoke = ops.RevokeAdminTokens
	}
	before, err := revoke(ctx, cliActor(), id)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked the tokens of %s %q issued before %s: every pads serving this database refuses them within %v\n",
		kind, id, before.Format(time.RFC3339), auth.RevocationBound)
	return nil
}
