package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/operator"
)

// records runs the record maintenance commands:
//
//	pads records reseal [--config FILE]
func records(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "reseal" {
		return errUsage
	}
	fs := flag.NewFlagSet("records reseal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	path, err := existingConfig(*configPath)
	if err != nil {
		return err
	}
	cfg, err := config.Load(path, getenv)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	keys, err := loadKeys(cfg, logger)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, cfg, keys, nil, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := operator.New(st, time.Now, nil).Reseal(ctx, cliActor(getenv))
	if err != nil {
		return fmt.Errorf("reseal (%d records rewritten before the error): %w", rep.Resealed, err)
	}
	fmt.Fprintf(stdout, "resealed %d records under key %q\n", rep.Resealed, keys.Encryption[0].ID)
	ids := make([]string, 0, len(rep.Records))
	for id := range rep.Records {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		fmt.Fprintf(stdout, "records under key %q: %d\n", id, rep.Records[id])
	}
	return nil
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
