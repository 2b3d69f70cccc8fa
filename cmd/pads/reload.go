package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/reload"
)

// reloadCmd is pads reload [--config FILE]: it asks the pads serving FILE
// to read it again, and reports the outcome: exit 0 when the config was
// taken, exit 1 with each problem on its line when it was not.
func reloadCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("reload", stdout, stderr)
	configPath := fs.String("config", "", "the config file pads serve runs with (default: ./pads-data/pads.yaml)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageOf(fs.FlagSet)
	}
	path, err := existingConfig(*configPath)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	dataDir, err := dataDirOf(abs, getenv)
	if err != nil {
		return err
	}
	sock := filepath.Join(dataDir, reload.SocketFile)
	notes, err := reload.Request(ctx, sock, abs)
	var rejected *reload.Rejected
	switch {
	case errors.Is(err, reload.ErrNotRunning):
		return fmt.Errorf("reload: no pads serve is running with %s (no answer on %s)", path, sock)
	case errors.As(err, &rejected):
		return fmt.Errorf("reload of %s %w", path, err)
	case err != nil:
		return fmt.Errorf("reload: %w", err)
	}
	fmt.Fprintf(stdout, "pads reloaded %s\n", path)
	for _, n := range notes {
		fmt.Fprintln(stdout, "note:", n)
	}
	return nil
}

var (
	envValue    = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)
	dataDirLine = regexp.MustCompile(`(?m)^dataDir:[ \t]*["']?([^"'#\s]+)`)
)

// dataDirOf reads only the dataDir of the config at path: the file may be
// wrong elsewhere, which is what pads serve's answer is for. A relative
// dataDir is relative to where pads serve runs, as for pads' other
// commands: the working directory.
func dataDirOf(path string, getenv func(string) string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reload: %w", err)
	}
	var v struct {
		DataDir string `yaml:"dataDir"`
	}
	if yaml.Unmarshal(data, &v) != nil {
		// A file YAML cannot read elsewhere still names its dataDir.
		if m := dataDirLine.FindSubmatch(data); m != nil {
			v.DataDir = string(m[1])
		}
	}
	if m := envValue.FindStringSubmatch(v.DataDir); m != nil {
		v.DataDir = getenv(m[1])
	}
	if v.DataDir == "" {
		v.DataDir = config.DefaultDataDir
	}
	return v.DataDir, nil
}
