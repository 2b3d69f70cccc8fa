package reload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/config"
)

// SocketFile is the Unix socket, in the data directory, on which pads
// serve takes pads reload's requests. It is mode 0600: whoever may read
// the data directory's secrets may reload.
const SocketFile = "pads.sock"

// maxSocketPath is what a Unix socket's path may hold (108 bytes on
// Linux, with its terminating zero).
const maxSocketPath = 107

// Timeout bounds one exchange on the socket: reading and checking a config
// takes milliseconds, a TLS key a little more.
const Timeout = 30 * time.Second

// The first line of an answer on the socket; the lines after it are the
// problems (rejected) or the notes (taken).
const (
	answerTaken    = "taken"
	answerRejected = "rejected"
)

// ErrNotRunning is Request finding no pads at the socket.
var ErrNotRunning = errors.New("no pads serve answers on the socket")

// Rejected is a reload pads serve refused: Problems are its reasons, one
// per line, each with its line in the file when it has one.
type Rejected struct{ Problems []string }

func (e *Rejected) Error() string {
	return "rejected; the previous config stays in force:\n  " + strings.Join(e.Problems, "\n  ")
}

// OnSocket takes reload requests on sock until the returned stop is
// called. A request names the config file it means (its absolute path): a
// process serving another file refuses it.
func (r *Reloader) OnSocket(sock string) (stop func(), err error) {
	ln, err := listenSocket(sock)
	if err != nil {
		return nil, err
	}
	path, _ := filepath.Abs(r.Path)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go r.answer(conn, path)
		}
	}()
	return func() { ln.Close() }, nil // closing removes the socket file
}

func listenSocket(sock string) (net.Listener, error) {
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

// answer serves one request: "reload <absolute config path>".
func (r *Reloader) answer(conn net.Conn, path string) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(Timeout))
	line, err := bufio.NewReader(io.LimitReader(conn, 4096)).ReadString('\n')
	if err != nil {
		return
	}
	asked, ok := strings.CutPrefix(strings.TrimSpace(line), "reload ")
	switch {
	case !ok:
		fmt.Fprintf(conn, "%s\nunknown request\n", answerRejected)
		return
	case asked != path:
		fmt.Fprintf(conn, "%s\nthis pads serves %s, not %s: give that file to --config\n", answerRejected, path, asked)
		return
	}
	r.Log.Info("config reload requested by pads reload")
	notes, err := r.Report()
	if err != nil {
		fmt.Fprintf(conn, "%s\n%s\n", answerRejected, strings.Join(problemLines(err), "\n"))
		return
	}
	fmt.Fprintln(conn, answerTaken)
	for _, n := range notes {
		fmt.Fprintln(conn, n)
	}
}

// problemLines is each problem of a config's error.
func problemLines(err error) []string {
	var p *config.Problems
	if !errors.As(err, &p) {
		return strings.Split(err.Error(), "\n")
	}
	lines := append([]string(nil), p.List...)
	if p.More > 0 {
		lines = append(lines, fmt.Sprintf("... and %d more", p.More))
	}
	return lines
}

// Request asks the pads listening on sock to reload path (absolute) and
// returns its notes when it took the file, a *Rejected when it did not,
// ErrNotRunning when nothing answers.
func Request(ctx context.Context, sock, path string) (notes []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, ErrNotRunning
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	fmt.Fprintf(conn, "reload %s\n", path)
	answer, err := io.ReadAll(io.LimitReader(conn, 1<<20))
	if err != nil {
		return nil, err
	}
	verdict, rest, _ := strings.Cut(strings.TrimRight(string(answer), "\n"), "\n")
	var lines []string
	if rest != "" {
		lines = strings.Split(rest, "\n")
	}
	switch verdict {
	case answerTaken:
		return lines, nil
	case answerRejected:
		return nil, &Rejected{Problems: lines}
	}
	return nil, fmt.Errorf("pads serve did not answer (%q)", verdict)
}
