// Command hostile soaks pads with hostile connections for minutes, at its
// default timeouts and connection limit, while a normal client saves one
// record after another, and reports how soon each hostile connection was
// cut and the normal client's latency. Each hostile connection is opened
// again as soon as it is cut, so the pressure stays on for the whole run:
//
//   - slow headers: a request line, then one header byte every second;
//   - slow bodies: a 64 KiB save body sent one byte per second;
//   - silent: connections that never send a byte;
//   - idle: keep-alive connections left idle after one request;
//   - no-read: clients that pipeline requests for /metrics and read nothing.
//
// It starts the pads binary given with -pads (default: built from
// ./cmd/pads) on a fresh SQLite data dir with the default limits, and
// exits 1 if any normal save failed or a hostile connection outlived its
// timeout by more than -slack. From the repository's root:
//
//	go run ./loadtest/hostile -duration 5m
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

const key = "hostile-soak-key-0123456789"

// The defaults of pads' limits (internal/config): what the run checks.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 120 * time.Second
	maxConnections    = 1024
)

func main() {
	padsBin := flag.String("pads", "", "path of the pads binary (default: build ./cmd/pads)")
	dur := flag.Duration("duration", 3*time.Minute, "how long to keep the hostile connections up")
	slowHeaders := flag.Int("slow-headers", 200, "connections sending their headers one byte a second")
	slowBodies := flag.Int("slow-bodies", 50, "connections sending a 64 KiB body one byte a second")
	silent := flag.Int("silent", 500, "connections that never send a byte")
	idle := flag.Int("idle", 200, "keep-alive connections left idle")
	noRead := flag.Int("no-read", 8, "clients that never read their answers")
	slack := flag.Duration("slack", 2*time.Second, "how late after its timeout a cut may come")
	flag.Parse()
	if n := *slowHeaders + *slowBodies + *silent + *idle + *noRead; n > maxConnections-24 {
		log.Fatalf("hostile: %d hostile connections leave no room under maxConnections (%d) for the normal client", n, maxConnections)
	}

	dir, err := os.MkdirTemp("", "pads-hostile")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := *padsBin
	if bin == "" {
		bin = filepath.Join(dir, "pads")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/pads").CombinedOutput(); err != nil {
			log.Fatalf("hostile: go build: %v\n%s", err, out)
		}
	}
	addr, stop := startPads(bin, dir)
	defer stop()
	base := "http://" + addr
	tok := token(base)

	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	defer cancel()
	kinds := []*kind{
		{name: "slow headers", timeout: readHeaderTimeout, n: *slowHeaders, run: slowHeader},
		{name: "slow bodies", timeout: readTimeout, n: *slowBodies, run: func(c net.Conn) time.Time { return slowBody(c, tok) }},
		{name: "silent", timeout: readHeaderTimeout, n: *silent, run: silence},
		{name: "idle keep-alive", timeout: idleTimeout, n: *idle, run: idleAfterOne},
		{name: "no-read", timeout: writeTimeout, n: *noRead, run: neverRead, fill: true},
	}
	var wg sync.WaitGroup
	for _, k := range kinds {
		for range k.n {
			wg.Go(func() { k.keep(ctx, addr) })
		}
	}
	fmt.Printf("pads at %s, default limits; %v of hostile connections\n", base, *dur)
	lat, failed := normalClient(ctx, base, tok)
	wg.Wait()

	ok := failed == 0
	for _, k := range kinds {
		k.mu.Lock()
		cuts := slices.Clone(k.cuts)
		k.mu.Unlock()
		slices.Sort(cuts)
		if len(cuts) == 0 {
			fmt.Printf("%-16s %4d open: none cut within the run (timeout %v)\n", k.name, k.n, k.timeout)
			continue
		}
		limit := k.timeout + *slack
		if k.fill {
			limit += *slack // the answers that fill the buffers come first
		}
		late := 0
		for _, d := range cuts {
			if d > limit || d < k.timeout-time.Second {
				late++
			}
		}
		fmt.Printf("%-16s %4d open: %5d cut, after %v / %v / %v (min / median / max; timeout %v), %d outside [timeout-1s, %v]\n",
			k.name, k.n, len(cuts), round(cuts[0]), round(cuts[len(cuts)/2]), round(cuts[len(cuts)-1]), k.timeout, late, limit)
		if late > 0 {
			ok = false
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		fmt.Printf("normal client:   %d saves, %d failed, p50 %v, p99 %v, max %v\n", len(lat), failed,
			round(lat[len(lat)/2]), round(lat[len(lat)*99/100]), round(lat[len(lat)-1]))
	}
	if !ok {
		os.Exit(1)
	}
}

// kind is one kind of hostile connection, kept at n open.
type kind struct {
	name    string
	timeout time.Duration
	n       int
	fill    bool
	// run plays the hostile client on c and returns when pads cut it,
	// or a zero time when it went wrong otherwise; the cut is measured
	// from when run returns its start (below) to then.
	run func(c net.Conn) time.Time

	mu   sync.Mutex
	cuts []time.Duration
}

// keep opens a connection of the kind, plays it until pads cuts it,
// records how long that took, and opens another, until ctx ends.
func (k *kind) keep(ctx context.Context, addr string) {
	for ctx.Err() == nil {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		stop := context.AfterFunc(ctx, func() { c.Close() })
		start := k.run(c)
		end := time.Now()
		c.Close()
		if stop() && !start.IsZero() { // cut by pads, not by the end of the run
			k.mu.Lock()
			k.cuts = append(k.cuts, end.Sub(start))
			k.mu.Unlock()
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// slowHeader sends a request line, then a header byte a second, until the
// connection is cut; it returns when the request began.
func slowHeader(c net.Conn) time.Time {
	start := time.Now()
	go func() {
		fmt.Fprintf(c, "POST /patient/savePatientData?dataType=non-sensitive HTTP/1.1\r\nHost: pads\r\n")
		for {
			if _, err := c.Write([]byte("X")); err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	io.Copy(io.Discard, c)
	return start
}

// slowBody sends a save's headers at once and its 64 KiB body a byte a
// second; pads answers 408 at readTimeout and closes.
func slowBody(c net.Conn, tok string) time.Time {
	start := time.Now()
	fmt.Fprintf(c, "POST /patient/savePatientData?dataType=non-sensitive HTTP/1.1\r\nHost: pads\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", tok, 64<<10)
	go func() {
		for {
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	io.Copy(io.Discard, c)
	return start
}

func silence(c net.Conn) time.Time {
	start := time.Now()
	io.Copy(io.Discard, c)
	return start
}

// idleAfterOne makes one request and leaves the connection idle.
func idleAfterOne(c net.Conn) time.Time {
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: pads\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return time.Time{}
	}
	io.Copy(io.Discard, resp.Body)
	start := time.Now()
	io.Copy(io.Discard, c)
	return start
}

// neverRead sends 3,000 requests for /metrics at once and one more every
// 100 ms, reading nothing, with a small receive buffer; the write that
// fails is the cut.
func neverRead(c net.Conn) time.Time {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096)
	}
	const req = "GET /metrics HTTP/1.1\r\nHost: pads\r\n\r\n"
	start := time.Now()
	if _, err := io.WriteString(c, strings.Repeat(req, 3000)); err != nil {
		return time.Time{}
	}
	for {
		time.Sleep(100 * time.Millisecond)
		if _, err := io.WriteString(c, req); err != nil {
			if errors.Is(err, net.ErrClosed) {
				return time.Time{}
			}
			return start
		}
	}
}

// normalClient saves one record after another until ctx ends.
func normalClient(ctx context.Context, base, tok string) ([]time.Duration, int) {
	client := &http.Client{Timeout: 10 * time.Second}
	var lat []time.Duration
	failed := 0
	for i := 0; ctx.Err() == nil; i++ {
		body := fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"soak-main","email":"soak%d@example.com"}`, i)
		req, _ := http.NewRequest("POST", base+"/patient/savePatientData?dataType=non-sensitive", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			failed++
			log.Printf("normal save %d: %v", i, err)
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 201 {
			failed++
			log.Printf("normal save %d: %d", i, resp.StatusCode)
			continue
		}
		lat = append(lat, time.Since(start))
		time.Sleep(5 * time.Millisecond) // about 200 saves a second
	}
	return lat, failed
}

var listening = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

// startPads runs pads on a fresh data dir with the default limits (the
// soak client's save limit aside) and returns its address.
func startPads(bin, dir string) (string, func()) {
	cfg := filepath.Join(dir, "pads.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`listen: 127.0.0.1:0
dataDir: %s
limits:
  maxConnectionsPerAddress: 1024   # every hostile connection comes from 127.0.0.1
clients:
  - id: soak
    apiKeys: [{key: %s}]
    funnels: [{id: soak-main}]
`, filepath.Join(dir, "data"), key)), 0o600)
	cmd := exec.Command(bin, "serve", "--config", cfg)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
	}()
	select {
	case addr := <-found:
		return addr, func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait(); pw.Close() }
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		log.Fatal("hostile: pads did not start")
	}
	return "", nil
}

func token(base string) string {
	resp, err := http.Post(base+"/storage/authenticate", "application/json",
		strings.NewReader(fmt.Sprintf(`{"username":"soak","password":%q}`, key)))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`"token":"([^"]+)"`).FindSubmatch(b)
	if m == nil {
		log.Fatalf("hostile: authenticate: %d %s", resp.StatusCode, b)
	}
	return string(m[1])
}

func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
