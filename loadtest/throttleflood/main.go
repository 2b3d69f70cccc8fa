// Command throttleflood floods a running pads with failed logins and checks
// that its login throttle cannot be flushed. It starts the pads binary
// given with -pads (default: built from ./cmd/pads) on a fresh SQLite data
// dir listening on 127.0.0.1, then:
//
//  1. blocks the pair (flood, 127.0.0.1) with loginFailures wrong keys;
//  2. sends -n failed logins with junk usernames, half from 127.0.0.1
//     itself, half through 127.0.0.2, a trusted proxy whose
//     X-Forwarded-For names a new address every 50 logins;
//  3. checks that the right key from 127.0.0.1 is still refused (429) and
//     that the right key from 127.0.0.3, which never failed, is answered
//     200.
//
// It prints the rate of the flood, the answers' statuses and pads' memory,
// and exits 1 if the block was flushed. Every connection stays on
// 127.0.0.1/8. From the repository's root:
//
//	go run ./loadtest/throttleflood -n 150000
package main

import (
	"bufio"
	"context"
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
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	user          = "flood"
	key           = "throttle-flood-key-0123456789abcdef"
	loginFailures = 10
)

func main() {
	padsBin := flag.String("pads", "", "path of the pads binary (default: build ./cmd/pads)")
	n := flag.Int("n", 150_000, "failed logins with junk usernames to send")
	workers := flag.Int("c", 32, "concurrent senders")
	flag.Parse()

	dir, err := os.MkdirTemp("", "pads-throttleflood")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := *padsBin
	if bin == "" {
		bin = filepath.Join(dir, "pads")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/pads").CombinedOutput(); err != nil {
			log.Fatalf("throttleflood: go build: %v\n%s", err, out)
		}
	}
	addr, pid, stop := startPads(bin, dir)
	defer stop()
	base := "http://" + addr
	direct, proxy, fresh := client("127.0.0.1"), client("127.0.0.2"), client("127.0.0.3")

	for range loginFailures {
		login(direct, base, user, "wrong-key", "")
	}
	if s := login(direct, base, user, key, ""); s != http.StatusTooManyRequests {
		log.Fatalf("throttleflood: the pair is not blocked before the flood: %d", s)
	}

	var next atomic.Int64
	var statuses sync.Map
	start := time.Now()
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(*n) {
					return
				}
				junk := fmt.Sprintf("junk-%d", i)
				var s int
				if i%2 == 0 {
					s = login(direct, base, junk, "wrong-key", "")
				} else {
					j := i / 2 / 50
					s = login(proxy, base, junk, "wrong-key", fmt.Sprintf("10.%d.%d.%d", j>>16&255, j>>8&255, j&255))
				}
				c, _ := statuses.LoadOrStore(s, new(atomic.Int64))
				c.(*atomic.Int64).Add(1)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	fmt.Printf("flood: %d failed logins with junk usernames in %v (%.0f/s), %d concurrent\n", *n, took.Round(time.Millisecond), float64(*n)/took.Seconds(), *workers)
	statuses.Range(func(k, v any) bool {
		fmt.Printf("  %d: %d\n", k, v.(*atomic.Int64).Load())
		return true
	})
	fmt.Printf("pads memory after the flood: %s\n", rss(pid))

	blocked := login(direct, base, user, key, "")
	open := login(fresh, base, user, key, "")
	fmt.Printf("right key from the blocked address: %d (want 429); from an address that never failed: %d (want 200)\n", blocked, open)
	if blocked != http.StatusTooManyRequests || open != http.StatusOK {
		fmt.Println("FAIL: the flood flushed the throttle or locked the client out")
		stop()
		os.Exit(1)
	}
}

// client makes its connections from the source address given (any of
// 127.0.0.0/8 is this host's).
func client(src string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: d.DialContext, MaxIdleConnsPerHost: 64,
	}}
}

func login(c *http.Client, base, username, password, forwardedFor string) int {
	req, _ := http.NewRequestWithContext(context.Background(), "POST", base+"/storage/authenticate",
		strings.NewReader(fmt.Sprintf(`{"username":%q,"password":%q}`, username, password)))
	req.Header.Set("Content-Type", "application/json")
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

var listening = regexp.MustCompile(`"msg":"listening".*"addr":"([^"]+)"`)

func startPads(bin, dir string) (string, int, func()) {
	cfg := filepath.Join(dir, "pads.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`listen: 127.0.0.1:0
dataDir: %s
trustedProxies: [127.0.0.2]
limits: {loginFailures: %d, loginWindow: 15m}
clients:
  - id: %s
    apiKeys: [{key: %s}]
    funnels: [{id: flood-main}]
`, filepath.Join(dir, "data"), loginFailures, user, key)), 0o600)
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
	var once sync.Once
	stop := func() { once.Do(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait(); pw.Close() }) }
	select {
	case addr := <-found:
		return addr, cmd.Process.Pid, stop
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		log.Fatal("throttleflood: pads did not start")
	}
	return "", 0, nil
}

// rss is the VmRSS line of the process's status, or "unknown".
func rss(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return "unknown"
}
