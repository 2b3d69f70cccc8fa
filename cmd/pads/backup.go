package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/operator"
)

// backup copies the SQLite database while pads serves:
//
//	pads backup FILE [--config FILE]
//
// The copy is consistent (one snapshot) and sealed like the database: it
// opens with the same encryption keys, so back those up too.
func backup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 {
		return errUsage
	}
	file, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	path, err := existingConfig(*configPath)
	if err != nil {
		return err
	}
	cfg, err := config.Load(path, getenv)
	if err != nil {
		return err
	}
	// Refused before connecting: there is nothing to copy from here.
	if !strings.HasPrefix(cfg.Database, "sqlite://") {
		return operator.ErrNoBackup
	}
	ops, closeStore, err := operatorForCLI(ctx, path, getenv, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	start := time.Now()
	if err := ops.Backup(ctx, cliActor(getenv), file); err != nil {
		if errors.Is(err, operator.ErrNoBackup) {
			return err
		}
		return fmt.Errorf("backup: %w", err)
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%d bytes, %v)\n", strings.TrimPrefix(cfg.Database, "sqlite://"), file,
		st.Size(), time.Since(start).Round(time.Millisecond))
	fmt.Fprintln(stdout, "it opens only with the same encryption keys: keep them backed up too")
	return nil
}
