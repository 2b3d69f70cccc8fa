package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAClientOverItsSaveLimitGets429AndDoesNotSlowAnother floods acme
// (5 saves/s, burst 5) from four connections for three seconds or more while
// globex (the default limit) saves one at a time: acme gets 429 with
// Retry-After and the contract's body past its limit, and every globex
// save succeeds at normal latency.
func TestAClientOverItsSaveLimitGets429AndDoesNotSlowAnother(t *testing.T) {
	if testing.Short() {
		t.Skip("floods a real process")
	}
	t.Parallel()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`serviceName: pads
listen: 127.0.0.1:0
dataDir: %s
clients:
  - id: acme
    apiKeys: [{key: %s}]
    limits: {savesPerSecond: 5, burst: 5}   # low: a loaded machine floods at 25 saves/s, not hundreds
    funnels: [{id: acme-main}]
  - id: globex
    apiKeys: [{key: %s}]
    funnels: [{id: globex-main}]
`, filepath.Join(dir, "data"), acmeKey, globexKey)
	path := writeConfig(t, dir, cfg)
	p := startProc(t, dir, "--config", path)
	acme, globex := procToken(t, p.base, "acme", acmeKey), procToken(t, p.base, "globex", globexKey)

	// globex alone, for comparison.
	alone := saveSteadily(t, p.base, globex, "globex-main", 200, nil)

	// At least 3 s, and until acme has been refused often: a loaded
	// machine floods slowly (25 saves/s seen).
	const flood, refusals = 3 * time.Second, 50
	var ok, refused atomic.Int64
	var bad atomic.Value // first wrong 429, if any
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 10 * time.Second}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := newSaveRequest(p.base, acme, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"flood-%d-%d@example.com"}`, w, i))
				resp, err := client.Do(req)
				if err != nil {
					bad.CompareAndSwap(nil, err.Error())
					return
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case 201:
					ok.Add(1)
				case 429:
					refused.Add(1)
					if msg := check429(resp, raw); msg != "" {
						bad.CompareAndSwap(nil, msg)
					}
				default:
					bad.CompareAndSwap(nil, fmt.Sprintf("acme: %d %s", resp.StatusCode, raw))
				}
			}
		})
	}
	start := time.Now()
	during := saveSteadily(t, p.base, globex, "globex-main", 0, func() bool {
		return time.Since(start) > flood && refused.Load() >= refusals || time.Since(start) > busyWait
	})
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)

	if v := bad.Load(); v != nil {
		t.Fatal(v)
	}
	// The bucket starts full (5) and refills at 5/s.
	allowed := 5 + int64(5*elapsed.Seconds()) + 2
	t.Logf("acme flooding for %v: %d saves accepted (at most %d allowed), %d refused with 429", elapsed.Round(time.Millisecond), ok.Load(), allowed, refused.Load())
	if ok.Load() > allowed || ok.Load() < 5 || refused.Load() < refusals {
		t.Fatalf("acme: %d accepted, %d refused; want at most %d accepted and many refused", ok.Load(), refused.Load(), allowed)
	}
	t.Logf("globex saves alone: %s", alone)
	t.Logf("globex saves while acme floods: %s", during)
	// Starved, globex would wait seconds; a loaded machine costs it
	// hundreds of milliseconds at most. The figures are logged above.
	if during.p99() > 2*time.Second {
		t.Fatalf("globex p99 %v while acme floods: one client over its limit slows another", during.p99())
	}
}

// check429 returns what is wrong with a 429 answer, or "".
func check429(resp *http.Response, raw []byte) string {
	ra, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || ra < 1 {
		return fmt.Sprintf("429 with Retry-After %q, want whole seconds >= 1", resp.Header.Get("Retry-After"))
	}
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil || len(body) != 2 || body["message"] != "Too many requests" ||
		body["requestId"] != resp.Header.Get("X-Request-Id") {
		return fmt.Sprintf("429 body %s, want the contract's error", raw)
	}
	return ""
}

// latencies are the durations of a client's successful saves.
type latencies []time.Duration

func (l latencies) p(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func (l latencies) p99() time.Duration { return l.p(0.99) }

func (l latencies) String() string {
	return fmt.Sprintf("%d saves, p50 %v, p99 %v, max %v", len(l), l.p(0.5).Round(10*time.Microsecond),
		l.p99().Round(10*time.Microsecond), l.p(1).Round(10*time.Microsecond))
}

// saveSteadily saves records one after another on one keep-alive
// connection, n of them or until done says so, and returns their
// latencies; any answer but 201 fails the test.
func saveSteadily(t *testing.T, base, tok, funnel string, n int, done func() bool) latencies {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var out latencies
	for i := 0; (n > 0 && i < n) || (n == 0 && !done()); i++ {
		req, _ := newSaveRequest(base, tok, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":%q,"email":"steady-%d-%d@example.com"}`, funnel, time.Now().UnixNano(), i))
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("normal client's save %d: %v", i, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("normal client's save %d: %d %s", i, resp.StatusCode, raw)
		}
		out = append(out, time.Since(start))
	}
	return out
}
