package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/operator"
)

// backup copies the SQLite database while pads serves:
//
//	pads backup FILE [--config FILE]
//
// The copy is consistent (one snapshot) and sealed like the database: it
// opens with the same encryption keys, so back those up too.
func backup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("backup", stdout, stderr)
	configPath := fs.String("config", "", "config file (default: ./pads-data/pads.yaml)")
	pos, err := fs.parseMixed(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageOf(fs.FlagSet)
	}
	file, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	_, cfg, err := cliConfigForReading(*configPath, getenv)
	if err != nil {
		return err
	}
	// Refused before connecting: there is nothing to copy from here.
	if !strings.HasPrefix(cfg.Database, "sqlite://") {
		return operator.ErrNoBackup
	}
	st, _, err := cliStore(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	ops := operator.New(st, time.Now, nil)
	start := time.Now()
	if err := ops.Backup(ctx, cliActor(), file); err != nil {
		if errors.Is(err, operator.ErrNoBackup) {
			return err
		}
		return fmt.Errorf("backup: %w", err)
	}
	info, err := os.Stat(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%d bytes, %v)\n", strings.TrimPrefix(cfg.Database, "sqlite://"), file,
		info.Size(), time.Since(start).Round(time.Millisecond))
	fmt.Fprintln(stdout, "it opens only with the same encryption keys: keep them backed up too")
	return nil
}
