// Command isolation measures how a healthy destination fares beside many
// bad ones. For each count of bad destinations (-bad, default 0,8,32,100)
// it starts a fresh pads (the binary given with -pads, default built from
// ./cmd/pads) on a fresh database (SQLite, or PostgreSQL with -database),
// with:
//
//   - one healthy client whose webhook receiver answers 200 at once;
//   - the bad destinations, of one client or spread over -bad-clients
//     clients, each with a backlog of -backlog deliveries queued by saves
//     before the measure, behaving as -kind says: "hang" (the receiver
//     never answers: each attempt runs to the destination's 10 s timeout),
//     "slow" (it answers 200 after 8 s), or "token" (the destination's
//     OAuth2 token endpoint hangs);
//
// then saves -rate records a second for -duration to the healthy client
// and reports the save-to-2xx latency (from the save's request to the
// receiver's 200) at p50 / p99 / max, with what pads' own metrics said.
// Everything listens on 127.0.0.1. From the repository's root:
//
//	go run ./loadtest/isolation -kind hang
//	go run ./loadtest/isolation -kind hang -database 'postgres://postgres@127.0.0.1:25432/postgres?sslmode=disable'
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

const key = "isolation-load-key-0123456789abcdef"

func main() {
	padsBin := flag.String("pads", "", "path of the pads binary (default: build ./cmd/pads)")
	bads := flag.String("bad", "0,8,32,100", "counts of bad destinations, one run each")
	badClients := flag.Int("bad-clients", 1, "clients the bad destinations belong to (0: one client each)")
	kind := flag.String("kind", "hang", "what the bad destinations do: hang, slow or token")
	backlog := flag.Int("backlog", 50, "deliveries queued for each bad destination before the measure")
	rate := flag.Float64("rate", 10, "saves a second to the healthy client")
	dur := flag.Duration("duration", 40*time.Second, "how long to measure")
	database := flag.String("database", "", "a PostgreSQL server URL to make a database on for each run (default: SQLite)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "pads-isolation")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := *padsBin
	if bin == "" {
		bin = filepath.Join(dir, "pads")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/pads").CombinedOutput(); err != nil {
			log.Fatalf("isolation: go build: %v\n%s", err, out)
		}
	}
	store := "SQLite"
	if *database != "" {
		store = "PostgreSQL"
	}
	fmt.Printf("%s, bad destinations that %s, %d deliveries of backlog each, healthy saves at %.0f/s for %v\n", store, *kind, *backlog, *rate, *dur)
	for i, f := range strings.Split(*bads, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			log.Fatalf("isolation: -bad %q", f)
		}
		clients := *badClients
		if clients <= 0 || clients > n {
			clients = max(n, 1)
		}
		r := runOnce(bin, filepath.Join(dir, fmt.Sprint(i)), *database, n, clients, *kind, *backlog, *rate, *dur)
		fmt.Printf("%3d bad destinations of %3d clients: %d saves, %d delivered, save-to-2xx p50 %v, p99 %v, max %v; oldest due seen %.1fs\n",
			n, clients, r.saves, len(r.lat), pct(r.lat, 50), pct(r.lat, 99), pct(r.lat, 100), r.oldestDue)
	}
}

type result struct {
	saves     int
	lat       []time.Duration
	oldestDue float64
}

// receivers: the healthy one records when each record's delivery came;
// the bad one does what kind says.
type receivers struct {
	healthy, bad, token *http.Server
	mu                  sync.Mutex
	arrived             map[string]time.Time
	stop                chan struct{}
}

func startReceivers(kind string) (*receivers, string, string, string) {
	r := &receivers{arrived: map[string]time.Time{}, stop: make(chan struct{})}
	healthy := serve(func(w http.ResponseWriter, req *http.Request) {
		var p struct{ UUID string }
		json.NewDecoder(req.Body).Decode(&p)
		r.mu.Lock()
		if _, ok := r.arrived[p.UUID]; !ok {
			r.arrived[p.UUID] = time.Now()
		}
		r.mu.Unlock()
	})
	bad := serve(func(w http.ResponseWriter, req *http.Request) {
		wait := time.Duration(1<<62 - 1)
		if kind == "slow" {
			wait = 8 * time.Second
		}
		select {
		case <-time.After(wait):
		case <-req.Context().Done():
		case <-r.stop:
		}
	})
	token := serve(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-req.Context().Done():
		case <-r.stop:
		}
	})
	return r, healthy, bad, token
}

func serve(h http.HandlerFunc) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, h)
	return "http://" + ln.Addr().String()
}

func runOnce(bin, dir, database string, bad, clients int, kind string, backlog int, rate float64, dur time.Duration) result {
	os.MkdirAll(dir, 0o700)
	rc, healthyURL, badURL, tokenURL := startReceivers(kind)
	defer close(rc.stop)
	db := ""
	if database != "" {
		db = freshDatabase(database, filepath.Base(dir))
	}
	cfg := writeConfig(dir, db, healthyURL, badURL, tokenURL, kind, bad, clients)
	base, stop := startPads(bin, cfg)
	defer stop()

	// The backlog: each save to a bad client raises one delivery to each of
	// its destinations.
	for c := range clients {
		if bad == 0 {
			break
		}
		tok := token(base, fmt.Sprintf("bad%d", c))
		for i := range backlog {
			save(base, tok, fmt.Sprintf("bad%d-main", c), fmt.Sprintf("backlog-%d-%d@example.com", c, i))
		}
	}
	// Let the bad destinations take what the dispatcher gives them.
	time.Sleep(3 * time.Second)

	tok := token(base, "good")
	sent := map[string]time.Time{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	end := time.Now().Add(dur)
	oldest := 0.0
	i := 0
	for now := range tick.C {
		if now.After(end) {
			break
		}
		i++
		wg.Go(func() {
			start := time.Now()
			uuid := save(base, tok, "good-main", fmt.Sprintf("healthy-%d@example.com", i))
			if uuid != "" {
				mu.Lock()
				sent[uuid] = start
				mu.Unlock()
			}
		})
		if i%int(rate) == 0 {
			oldest = max(oldest, oldestDue(base))
		}
	}
	tick.Stop()
	wg.Wait()
	time.Sleep(2 * time.Second) // the last deliveries' way
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var lat []time.Duration
	for uuid, at := range sent {
		if got, ok := rc.arrived[uuid]; ok {
			lat = append(lat, got.Sub(at))
		}
	}
	slices.Sort(lat)
	return result{saves: len(sent), lat: lat, oldestDue: oldest}
}

func writeConfig(dir, db, healthyURL, badURL, tokenURL, kind string, bad, clients int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "listen: 127.0.0.1:0\ndataDir: %s\n", filepath.Join(dir, "data"))
	if db != "" {
		fmt.Fprintf(&b, "database: %q\n", db)
	}
	b.WriteString("destinations: {allowPrivateNetworks: true, allowPlainHTTP: true}\nclients:\n")
	fmt.Fprintf(&b, `  - id: good
    apiKeys: [{key: %s}]
    limits: {savesPerSecond: 1000000}
    funnels: [{id: good-main}]
    destinations:
      - {id: hook, type: webhook, url: %q, timeout: 10s}
`, key, healthyURL)
	for c := range clients {
		fmt.Fprintf(&b, "  - id: bad%d\n    apiKeys: [{key: %s}]\n    limits: {savesPerSecond: 1000000}\n    funnels: [{id: bad%d-main}]\n    destinations:\n", c, key, c)
		for d := c; d < bad; d += clients {
			auth := ""
			if kind == "token" {
				auth = fmt.Sprintf(", auth: {oauth2: {tokenURL: %q, clientID: pads, clientSecret: s}}", tokenURL)
			}
			fmt.Fprintf(&b, "      - {id: bad%d, type: webhook, url: %q, timeout: 10s, retry: {attempts: 20, initialDelay: 1s, multiplier: 1}%s}\n", d, badURL, auth)
		}
	}
	path := filepath.Join(dir, "pads.yaml")
	os.WriteFile(path, []byte(b.String()), 0o600)
	return path
}

// freshDatabase makes a database named after the run on the server and
// returns its URL.
func freshDatabase(server, name string) string {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	db := fmt.Sprintf("pads_isolation_%d_%s", os.Getpid(), name)
	conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		log.Fatal(err)
	}
	u, _ := url.Parse(server)
	u.Path = "/" + db
	return u.String()
}

var listening = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

func startPads(bin, cfg string) (string, func()) {
	cmd := exec.Command(bin, "serve", "--config", cfg)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
	}()
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		// A pads whose workers are wedged never ends its attempts: past
		// its delivery grace and some, it is killed (and said so).
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(90 * time.Second):
			fmt.Println("  (pads did not stop within 90 s of SIGTERM: killed)")
			cmd.Process.Kill()
			<-done
		}
		pw.Close()
	}
	select {
	case addr := <-found:
		return "http://" + addr, stop
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		log.Fatal("isolation: pads did not start")
	}
	return "", nil
}

func token(base, client string) string {
	resp, err := http.Post(base+"/storage/authenticate", "application/json",
		strings.NewReader(fmt.Sprintf(`{"username":%q,"password":%q}`, client, key)))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var t struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&t)
	if t.Token == "" {
		log.Fatalf("isolation: authenticate %s: %d", client, resp.StatusCode)
	}
	return t.Token
}

// save completes a form for email (one delivery per destination of the
// funnel's client) and returns the record's uuid, or "" on failure.
func save(base, tok, funnel, email string) string {
	body := fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":%q,"email":%q,"first_name":"Ada","formCompleted":true}`, funnel, email)
	req, _ := http.NewRequest("POST", base+"/patient/savePatientData?dataType=non-sensitive", bytes.NewReader([]byte(body)))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var out struct{ PatientUUID string }
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode/100 != 2 {
		return ""
	}
	return out.PatientUUID
}

var oldestRE = regexp.MustCompile(`(?m)^pads_delivery_oldest_due_seconds ([0-9.e+-]+)$`)

func oldestDue(base string) float64 {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := oldestRE.FindSubmatch(b)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := min(len(d)-1, len(d)*p/100)
	return d[i].Round(time.Millisecond)
}
