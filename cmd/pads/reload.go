package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/pads-dev/pads/internal/config"
)

// ReloadSocket is the Unix socket, in the data directory, on which pads
// serve takes pads reload's requests. It is mode 0600: whoever may read
// the data directory's secrets may reload.
const ReloadSocket = "pads.sock"

// maxSocketPath is what a Unix socket's path may hold (108 bytes on
// Linux, with its terminating zero).
const maxSocketPath = 107

// reloadTimeout bounds one pads reload exchange: reading and checking a
// config takes milliseconds, a TLS key a little more.
const reloadTimeout = 30 * time.Second

// The answers pads serve gives on the socket: the first line is one of
// these, the lines after it the problems or notes.
const (
	reloadTaken    = "taken"
	reloadRejected = "rejected"
)

// reloadOnSocket takes reload requests on DataDir/pads.sock until the
// returned function is called. Without the socket (a path too long,
// another process holding it) pads still reloads on SIGHUP, and says so.
func (a *app) reloadOnSocket(path string, getenv func(string) string, started *config.Config) func() {
	sock := filepath.Join(started.DataDir, ReloadSocket)
	abs, _ := filepath.Abs(path)
	ln, err := listenReloadSocket(sock)
	if err != nil {
		a.logger.Warn("pads reload is unavailable for this process; SIGHUP still reloads", "socket", sock, "err", err.Error())
		return func() {}
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go a.answerReload(conn, abs, getenv, started)
		}
	}()
	return func() { ln.Close() } // removes the socket file too
}

func listenReloadSocket(sock string) (net.Listener, error) {
	if len(sock) > maxSocketPath {
		return nil, fmt.Errorf("the socket's path is longer than %d bytes: use a shorter dataDir", maxSocketPath)
	}
	if c, err := net.DialTimeout("unix", sock, time.Second); err == nil {
		c.Close()
		return nil, errors.New("another pads process serves this data directory's socket")
	}
	os.Remove(sock) // left by a process that died
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// answerReload serves one request: "reload <absolute config path>".
func (a *app) answerReload(conn net.Conn, path string, getenv func(string) string, started *config.Config) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(reloadTimeout))
	line, err := bufio.NewReader(io.LimitReader(conn, 4096)).ReadString('\n')
	if err != nil {
		return
	}
	asked, ok := strings.CutPrefix(strings.TrimSpace(line), "reload ")
	if !ok {
		fmt.Fprintf(conn, "%s\nunknown request\n", reloadRejected)
		return
	}
	if asked != path {
		fmt.Fprintf(conn, "%s\nthis pads serves %s, not %s: give that file to --config\n", reloadRejected, path, asked)
		return
	}
	a.logger.Info("config reload requested by pads reload")
	notes, err := a.reload(path, getenv, started)
	if err != nil {
		fmt.Fprintf(conn, "%s\n%s\n", reloadRejected, problemLines(err))
		return
	}
	fmt.Fprintf(conn, "%s\n", reloadTaken)
	for _, n := range notes {
		fmt.Fprintln(conn, n)
	}
}

// problemLines is each problem of a config's error on a line of its own.
func problemLines(err error) string {
	var p *config.Problems
	if errors.As(err, &p) {
		lines := p.List
		if p.More > 0 {
			lines = append(lines[:len(lines):len(lines)], fmt.Sprintf("... and %d more", p.More))
		}
		return strings.Join(lines, "\n")
	}
	return err.Error()
}

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
	sock := filepath.Join(dataDir, ReloadSocket)
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, reloadTimeout)
	defer cancel()
	conn, err := d.DialContext(dctx, "unix", sock)
	if err != nil {
		return fmt.Errorf("reload: no pads serve is running with %s (no answer on %s)", path, sock)
	}
	defer conn.Close()
	if dl, ok := dctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	fmt.Fprintf(conn, "reload %s\n", abs)
	answer, err := io.ReadAll(io.LimitReader(conn, 1<<20))
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	verdict, rest, _ := strings.Cut(string(answer), "\n")
	rest = strings.TrimRight(rest, "\n")
	switch verdict {
	case reloadTaken:
		fmt.Fprintf(stdout, "pads reloaded %s\n", path)
		for _, n := range strings.Split(rest, "\n") {
			if n != "" {
				fmt.Fprintln(stdout, "note:", n)
			}
		}
		return nil
	case reloadRejected:
		return fmt.Errorf("reload of %s rejected; the previous config stays in force:\n  %s", path, strings.ReplaceAll(rest, "\n", "\n  "))
	}
	return fmt.Errorf("reload: pads serve did not answer (%q)", verdict)
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
