package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
)

// records runs the record maintenance commands:
//
//	pads records reseal [--config FILE]
//	pads records erase --client ID (--patient UUID | --email EMAIL) [--config FILE]
//	pads records export --client ID (--patient UUID | --email EMAIL) --out FILE [--fhir] [--config FILE]
func records(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "erase":
		return erase(ctx, args[1:], getenv, stdout, stderr)
	case "export":
		return export(ctx, args[1:], getenv, stdout, stderr)
	case "reseal":
	default:
		return errUsage
	}
	fs := newFlags("records reseal", stdout, stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	if err := fs.parse(args[1:]); err != nil {
		return err
	}
	_, cfg, err := cliConfigForReading(*configPath, getenv)
	if err != nil {
		return err
	}
	st, keys, err := cliStore(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := operator.New(st, time.Now, nil).Reseal(ctx, cliActor())
	if err != nil {
		return fmt.Errorf("%w (rewritten before the error: %d records, %d payloads, %d answers)", err,
			rep.Records.Rewritten, rep.Payloads.Rewritten, rep.Responses.Rewritten)
	}
	for _, kind := range []struct {
		name string
		r    store.Resealed
	}{{"records", rep.Records}, {"payloads", rep.Payloads}, {"answers", rep.Responses}} {
		fmt.Fprintf(stdout, "resealed %d %s under key %q\n", kind.r.Rewritten, kind.name, keys.Encryption[0].ID)
		for _, id := range slices.Sorted(maps.Keys(kind.r.ByKey)) {
			fmt.Fprintf(stdout, "%s under key %q: %d\n", kind.name, keyName(id), kind.r.ByKey[id])
		}
	}
	return nil
}

// keyName names a key id in reseal's report: "" is a value in no known
// format (written by something else than pads).
func keyName(id string) string {
	if id == "" {
		return "(none)"
	}
	return id
}

// existingConfig is the --config value, or the starter config when there is
// one; maintenance commands never write a starter config.
func existingConfig(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	path := filepath.Join(config.DefaultDataDir, config.StarterFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no --config given and no %s", path)
	}
	return path, nil
}
