package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// Server is a PostgreSQL server of a test's own, in a temporary directory,
// which the test may stop and start again (to see pads lose and regain its
// database). It runs as the postgres user when the test runs as root (the
// server refuses root).
type Server struct {
	t    testing.TB
	bin  string // the directory of initdb and pg_ctl
	dir  string
	port int
	// URL names the server's postgres database.
	URL string
}

// StartServer makes and starts a server, stopped when the test ends. It
// skips the test where PostgreSQL's server programs are not installed,
// except under CI, where that is a failure.
func StartServer(t testing.TB) *Server {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must install PostgreSQL's server programs")
		}
		t.Skip("no PostgreSQL server programs (/usr/lib/postgresql/*/bin)")
	}
	sort.Strings(bins)
	// Not t.TempDir: its parents are private to this user, and the server
	// may run as another.
	dir, err := os.MkdirTemp("", "pads-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{t: t, bin: filepath.Dir(bins[len(bins)-1]), dir: dir}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(s.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
	s.run("initdb", "-D", filepath.Join(s.dir, "data"), "-A", "trust", "-U", "postgres")
	s.Start()
	t.Cleanup(func() { s.pgctl("-m", "immediate", "stop") })
	return s
}

// Start starts the server and waits until it accepts connections.
func (s *Server) Start() {
	s.t.Helper()
	s.pgctl("-w", "-l", filepath.Join(s.dir, "log"), "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", s.port, s.dir), "start")
}

// Stop stops the server at once, as a crash or a lost machine would.
func (s *Server) Stop() {
	s.t.Helper()
	s.pgctl("-w", "-m", "immediate", "stop")
}

func (s *Server) pgctl(args ...string) {
	s.t.Helper()
	s.run("pg_ctl", append([]string{"-D", filepath.Join(s.dir, "data")}, args...)...)
}

func (s *Server) run(program string, args ...string) {
	s.t.Helper()
	cmd := exec.Command(filepath.Join(s.bin, program), args...)
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(s.bin, program)}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("%s: %v\n%s", program, err, out)
	}
}
