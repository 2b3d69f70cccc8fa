// Command e2e measures pads end to end: the time from a save's answer to
// the signed webhook's arrival at a receiver, and the deliveries per second.
// It runs the receiver, starts the pads binary given with -pads on a fresh
// data dir, and sends saves that each complete a form (one delivery each),
// either paced (-rate) or flat out (-rate 0). With -database and
// -processes N it starts N pads processes on one PostgreSQL database and
// sends the saves to them in turn (round robin). With -backlog N, another
// client's destination, down (it answers 500), first gets N pending
// deliveries whose retries fall due over the next day (loadtest/backlog),
// as a destination down for a day leaves them: the saves and deliveries
// measured are the healthy destination's, beside that backlog. -history N
// adds the same rows delivered instead, for the run to compare with. Run it with
// loadtest/run.sh e2e and loadtest/run.sh backlog.
package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/loadtest/backlog"
	"github.com/pads-dev/pads/loadtest/harness"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func main() {
	padsBin := flag.String("pads", "", "path of the pads binary")
	rate := flag.Int("rate", 1000, "saves per second; 0 sends flat out")
	dur := flag.Duration("duration", 15*time.Second, "how long to send")
	workers := flag.Int("workers", 64, "concurrent senders")
	database := flag.String("database", "", "database URL (default: SQLite in a fresh data dir)")
	processes := flag.Int("processes", 1, "pads processes sharing -database, sent to in turn")
	pending := flag.Int("backlog", 0, "pending deliveries to queue first for a destination that answers 500")
	history := flag.Int("history", 0, "delivered deliveries to add first, as many records as -backlog makes (the run to compare a backlog with)")
	fresh := flag.Bool("fresh", false, "with -database: run on a new database of that server, dropped at the end")
	warmup := flag.Duration("warmup", 0, "how long pads runs before the saves start (with -backlog: the retries that fell due while it was queued are tried first)")
	expire := flag.Bool("expire", false, "give the history's client a retention of 1m, so that the retention sweep removes the -history rows while the load runs")
	flag.Parse()
	if *database != "" && *fresh {
		db, drop, err := harness.FreshDatabase(context.Background(), *database, "pads_e2e_")
		if err != nil {
			log.Fatal(err)
		}
		atExit = append(atExit, drop)
		defer drop()
		*database = db
	}
	if *processes > 1 && *database == "" {
		fatal("e2e: several processes need -database postgres://...")
	}
	if *padsBin == "" {
		fatal("e2e: -pads is required")
	}
	var (
		mu       sync.Mutex
		answered = map[string]time.Time{}
		arrived  = map[string]time.Time{}
		saveTook []time.Duration
		badSig   atomic.Int64
		down     atomic.Int64 // attempts at the destination that is down
	)
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	recv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/down" {
			down.Add(1)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		now := time.Now()
		if !verify(key, r.Header, body) {
			badSig.Add(1)
		}
		var p struct{ UUID string }
		json.Unmarshal(body, &p)
		mu.Lock()
		arrived[p.UUID] = now
		mu.Unlock()
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	go http.Serve(ln, recv)

	downRetention = ""
	if *expire {
		downRetention = "    retention: {bodies: 1m, deliveries: 1m}\n"
	}
	bases, pids, stop := startPads(*padsBin, "http://"+ln.Addr().String(), *database, *processes, *pending, *history)
	defer stop()
	atExit = append([]func(){stop}, atExit...) // pads first, then its database
	tok := token(bases[0])                     // the processes share their keys: it is good on each
	time.Sleep(*warmup)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers}}
	jobs := make(chan int, *workers)
	var wg sync.WaitGroup
	var errs atomic.Int64
	for range *workers {
		wg.Go(func() {
			for i := range jobs {
				id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, time.Now().UnixNano()&0xffffffffffff)
				body := fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"load-main","email":"p%d@example.com","patientUUID":%q,"firstName":"Ada","zip":"02134","formCompleted":true}`, i, id)
				base := bases[i%len(bases)]
				req, _ := http.NewRequest("POST", base+"/patient/savePatientData?dataType=non-sensitive", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+tok)
				req.Header.Set("Content-Type", "application/json")
				sentAt := time.Now()
				resp, err := client.Do(req)
				if err != nil || resp.StatusCode != 201 {
					errs.Add(1)
					if resp != nil {
						resp.Body.Close()
					}
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				now := time.Now()
				mu.Lock()
				answered[id] = now
				saveTook = append(saveTook, now.Sub(sentAt))
				mu.Unlock()
			}
		})
	}
	start, cpuStart := time.Now(), cpuOf(pids)
	counts := sampleCounts(&mu, answered, arrived, *dur)
	sent := 0
	for time.Since(start) < *dur {
		if *rate > 0 {
			due := start.Add(time.Duration(sent) * time.Second / time.Duration(*rate))
			if w := time.Until(due); w > 0 {
				time.Sleep(w)
			}
		}
		jobs <- sent
		sent++
	}
	close(jobs)
	wg.Wait()
	sendEnd := time.Now()
	// Wait for the stragglers.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		done := len(arrived) >= len(answered)
		mu.Unlock()
		if done {
			break
		}
	}
	cpu := cpuOf(pids) - cpuStart
	steady := <-counts // before mu: the sampler's last tick takes it
	mu.Lock()
	defer mu.Unlock()
	var lat []time.Duration
	var last time.Time
	for id, a := range answered {
		if at, ok := arrived[id]; ok {
			lat = append(lat, max(at.Sub(a), 0))
			if at.After(last) {
				last = at
			}
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	mode := fmt.Sprintf("paced at %d/s", *rate)
	if *rate == 0 {
		mode = "flat out"
	}
	if *processes > 1 {
		mode += fmt.Sprintf(", %d processes", *processes)
	}
	fmt.Printf("e2e %s, %d workers, %v: %d saves answered (%.0f/s), %d delivered (%.0f events/s until the last arrival), %d lost, %d save errors, %d bad signatures\n",
		mode, *workers, *dur, len(answered), float64(len(answered))/sendEnd.Sub(start).Seconds(), len(lat),
		float64(len(lat))/last.Sub(start).Seconds(), len(answered)-len(lat), errs.Load(), badSig.Load())
	fmt.Printf("save answered -> webhook received: p50 %v  p90 %v  p99 %v  max %v\n",
		pct(0.5).Round(100*time.Microsecond), pct(0.9).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond), pct(1).Round(100*time.Microsecond))
	printSteady(steady)
	slices.Sort(saveTook)
	savePct := func(p float64) time.Duration {
		if len(saveTook) == 0 {
			return 0
		}
		return saveTook[min(len(saveTook)-1, int(float64(len(saveTook))*p))].Round(100 * time.Microsecond)
	}
	fmt.Printf("save sent -> answered: p50 %v  p99 %v\n", savePct(0.5), savePct(0.99))
	if len(lat) > 0 {
		fmt.Printf("pads CPU: %v, %.3f ms per delivered event (its save included)\n",
			cpu.Round(10*time.Millisecond), float64(cpu)/float64(len(lat))/float64(time.Millisecond))
	}
	if *pending > 0 {
		fmt.Printf("backlog: %d pending for a destination answering 500; %d attempts at it during the run\n", *pending, down.Load())
	}
	if *history > 0 {
		fmt.Printf("retention sweep during the run: %s\n", swept(bases[0]))
	}
}

// downRetention is the retention of client down in pads' config ("": the
// defaults).
var downRetention string

// swept reads from pads' metrics what the retention sweep removed.
func swept(base string) string {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out []string
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, "pads_retention_removed_total{kind=\""); ok {
			out = append(out, strings.Replace(rest, "\"} ", " ", 1))
		}
	}
	if len(out) == 0 {
		return "nothing removed"
	}
	return strings.Join(out, ", ")
}

// atExit is what fatal runs before it ends the program: deferred calls
// do not run on an exit.
var atExit []func()

// fatal logs v, runs atExit (the fresh database is dropped) and exits 1.
func fatal(v ...any) {
	log.Print(v...)
	for _, f := range atExit {
		f()
	}
	os.Exit(1)
}

func verify(key []byte, h http.Header, body []byte) bool {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	m.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	return hmac.Equal([]byte(want), []byte(h.Get("webhook-signature")))
}

// startPads starts n pads processes on database (SQLite in the first
// one's data dir when ""), sharing their secrets, after queueing pending
// deliveries for the destination that is down, and returns their base
// URLs and what stops them.
func startPads(bin, receiver, database string, n, pending, history int) ([]string, []int, func()) {
	dir, err := os.MkdirTemp("", "pads-e2e-")
	if err != nil {
		fatal(err)
	}
	var bases []string
	var pids []int
	var cmds []*exec.Cmd
	stop := func() {
		for _, cmd := range cmds {
			cmd.Process.Kill()
			cmd.Wait()
		}
		os.RemoveAll(dir)
	}
	jwt, enc := newSecret(), newSecret()
	for p := range n {
		port := freePort()
		data := filepath.Join(dir, strconv.Itoa(p))
		db := ""
		if database != "" {
			db = fmt.Sprintf("database: %q\n", database)
		}
		cfg := fmt.Sprintf(`listen: 127.0.0.1:%d
dataDir: %s
%ssecrets:
  jwtKeys: [{id: k1, key: %q}]
  encryptionKeys: [{id: e1, key: %q}]
destinations: {allowPrivateNetworks: true, allowPlainHTTP: true}
clients:
  - id: load
    apiKeys: [{key: load-test-key-0123456789}]
    limits: {savesPerSecond: 1000000}   # measure pads, not the client's save limit
    subscription: full
    funnels: [{id: load-main}]
    destinations:
      - type: webhook
        url: %s
        auth: {hmac: {secret: %q}}
  - id: down
    apiKeys: [{key: down-test-key-0123456789}]
    subscription: full
    funnels: [{id: down-main}]
    destinations:
      - id: down
        type: webhook
        url: %s/down
        retry: {attempts: 20, initialDelay: 1m, multiplier: 2}
%s`, port, data, db, jwt, enc, receiver, secret, receiver, downRetention)
		os.MkdirAll(data, 0o700)
		if p == 0 && pending > 0 {
			queueBacklog(database, data, enc, pending, false)
		}
		if p == 0 && history > 0 {
			queueBacklog(database, data, enc, history, true)
		}
		path := filepath.Join(data, "pads.yaml")
		os.WriteFile(path, []byte(cfg), 0o600)
		cmd := exec.Command(bin, "serve", "--config", path)
		cmd.Stderr = io.Discard
		if logs := os.Getenv("PADS_E2E_LOGS"); logs != "" { // pads' log, one file per process
			if f, err := os.Create(fmt.Sprintf("%s.%d", logs, p)); err == nil {
				cmd.Stderr = f
			}
		}
		if err := cmd.Start(); err != nil {
			stop()
			fatal(err)
		}
		cmds = append(cmds, cmd)
		pids = append(pids, cmd.Process.Pid)
		base := "http://127.0.0.1:" + strconv.Itoa(port)
		for range 200 {
			if resp, err := http.Get(base + "/healthz"); err == nil {
				resp.Body.Close()
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		bases = append(bases, base)
	}
	return bases, pids, stop
}

// cpuOf is the CPU time (user and system) the processes have used so far,
// from /proc (Linux; zero elsewhere).
func cpuOf(pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0
		}
		// Fields after the command's closing parenthesis: state is the
		// first, utime and stime the 12th and 13th, in clock ticks (100/s).
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 13 {
			return 0
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(u+s) * 10 * time.Millisecond
	}
	return total
}

// queueBacklog queues n pending deliveries (or, when delivered, n
// delivered ones) for client down's destination, sealed under enc, on
// database (SQLite in data when "").
func queueBacklog(database, data, enc string, n int, delivered bool) {
	if database == "" {
		database = "sqlite://" + filepath.Join(data, "pads.db")
	}
	secret, _ := base64.StdEncoding.DecodeString(enc)
	keys, err := seal.NewKeyring([]seal.Key{{ID: "e1", Secret: secret}})
	if err != nil {
		fatal(err)
	}
	start := time.Now()
	err = backlog.Backlog{Database: database, Keys: keys, Client: "down", Destination: "down", Pending: n, Delivered: delivered}.Queue(context.Background())
	if err != nil {
		fatal(err)
	}
	state := "pending"
	if delivered {
		state = "delivered"
	}
	fmt.Printf("backlog: %d %s deliveries queued in %v\n", n, state, time.Since(start).Round(time.Second))
}

// newSecret is a base64 key of 32 random bytes, for the config's secrets.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func token(base string) string {
	resp, err := http.Post(base+"/storage/authenticate", "application/json",
		bytes.NewReader([]byte(`{"username":"load","password":"load-test-key-0123456789"}`)))
	if err != nil {
		fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&out)
	return out.Token
}

// counts is how many saves had been answered and how many of their
// webhooks had arrived at one instant of the run.
type counts struct{ answered, arrived int }

// sampleCounts samples the two counts once a second while the saves are
// sent (their maps are read under mu) and sends the samples when the
// sending ends.
func sampleCounts(mu *sync.Mutex, answered, arrived map[string]time.Time, dur time.Duration) <-chan []counts {
	out := make(chan []counts, 1)
	go func() {
		var cs []counts
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for range int(dur / time.Second) {
			<-tick.C
			mu.Lock()
			cs = append(cs, counts{len(answered), len(arrived)})
			mu.Unlock()
		}
		out <- cs
	}()
	return out
}

// printSteady prints the backlog (saves answered whose webhook has not
// arrived) second by second, and the deliveries per second against the
// saves per second over the second half of the run: the first figure
// says whether deliveries keep up, apart from the lag of the pipeline
// itself, which "until the last arrival" counts too.
func printSteady(cs []counts) {
	if len(cs) < 4 {
		return
	}
	backlog := make([]string, len(cs))
	for i, c := range cs {
		backlog[i] = strconv.Itoa(c.answered - c.arrived)
	}
	a, b := cs[len(cs)/2-1], cs[len(cs)-1]
	secs := float64(len(cs) - len(cs)/2)
	acc, del := float64(b.answered-a.answered)/secs, float64(b.arrived-a.arrived)/secs
	fmt.Printf("backlog each second: %s\n", strings.Join(backlog, " "))
	fmt.Printf("second half of the run: %.0f saves/s accepted, %.0f events/s delivered: %.2f\n", acc, del, del/acc)
}
