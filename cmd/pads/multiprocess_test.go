package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// TestTwoProcessesOnPostgreSQLSurviveAKill runs two pads serve processes on
// one PostgreSQL database, spreads 500 saves over both, kills one with
// SIGKILL part way, with deliveries in flight to a slow receiver, and checks
// that every save answered 2xx is delivered, the killed process's leases
// taken over, not waited out (the lease is the default two minutes), and
// that no delivery was ever tried by two processes at once.
func TestTwoProcessesOnPostgreSQLSurviveAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	var mu sync.Mutex
	delivered := map[string]int{} // patient uuid -> deliveries received
	var rc *receiver
	rc = newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		// A slow destination, not a wait for pads: each answer takes
		// 100 ms, so deliveries are in flight at the kill.
		time.Sleep(100 * time.Millisecond)
		var body struct{ UUID string }
		json.Unmarshal(rc.all()[n].body, &body)
		mu.Lock()
		delivered[body.UUID]++
		mu.Unlock()
	})
	jwt, enc := config.NewSecret(), config.NewSecret()
	dir := t.TempDir()
	path := writeConfig(t, dir, fmt.Sprintf(`listen: 127.0.0.1:0
dataDir: %s
database: %s
secrets:                        # several processes must share their secrets
  jwtKeys: [{id: k1, key: %q}]
  encryptionKeys: [{id: e1, key: %q}]
destinations: {allowPrivateNetworks: true, allowPlainHTTP: true}
clients:
  - id: acme
    apiKeys: [{key: %s}]
    subscription: full
    funnels: [{id: acme-main}]
    destinations:
      - type: webhook
        url: %s
        retry: {attempts: 10, initialDelay: 200ms, multiplier: 1}
`, filepath.Join(dir, "data"), dbURL, jwt, enc, acmeKey, rc.srv.URL))
	procs := []*proc{startProc(t, dir, "--config", path), startProc(t, dir, "--config", path)}
	watch := pgtest.Connect(t, dbURL)
	tok := procToken(t, procs[0].base, "acme", acmeKey) // valid on both: same keys

	var acked sync.Map // uuid -> true
	var count atomic.Int64
	var killed atomic.Bool
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range jobs {
				p := procs[i%2]
				if i%2 == 0 && killed.Load() {
					p = procs[1]
				}
				body := fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"p%d@example.com","formCompleted":true}`, i)
				req, _ := newSaveRequest(p.base, tok, body)
				resp, err := httpClient.Do(req)
				if err != nil {
					continue // the killed process: not acknowledged
				}
				var out struct{ PatientUUID string }
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode == 201 {
					acked.Store(out.PatientUUID, true)
					count.Add(1)
				}
			}
		})
	}
	var killedAt time.Time
	for i := range 500 {
		if i == 250 {
			// Both processes have delivered some by now, and each holds
			// leases: a process may claim far ahead of its attempts, so
			// the one killed might otherwise hold none, and nothing would
			// have to be taken over.
			waitFor(t, func() bool { return len(rc.all()) >= 100 })
			waitFor(t, func() bool { return leaseHolders(t, watch) == 2 })
			procs[0].cmd.Process.Signal(syscall.SIGKILL)
			procs[0].wait()
			killed.Store(true)
			killedAt = time.Now()
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	answered := time.Now()

	var want []string
	acked.Range(func(k, _ any) bool { want = append(want, k.(string)); return true })
	t.Logf("%d saves acknowledged", len(want))
	if len(want) < 400 {
		t.Fatalf("only %d of 500 saves acknowledged", len(want))
	}
	missing := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, u := range want {
			if delivered[u] == 0 {
				n++
			}
		}
		return n
	}
	// Well within the two-minute lease, however busy the machine. The
	// receiver counts an attempt in flight at the kill as arrived, so
	// that the killed process's leases were taken over, not waited out,
	// the survivor's log says (it looks every 2 s).
	if !waitWithin(busyWait, func() bool { return missing() == 0 }) {
		t.Fatalf("%d acknowledged saves not delivered %v after the last answer", missing(), busyWait)
	}
	if !waitWithin(busyWait, func() bool {
		return strings.Contains(procs[1].logs.String(), "took over deliveries left by a process that is gone")
	}) {
		t.Fatalf("the surviving process took nothing over in %v: the killed one's deliveries wait out their leases", busyWait)
	}
	t.Logf("every acknowledged save delivered %v after the last answer, %v after the kill",
		time.Since(answered).Round(time.Millisecond), time.Since(killedAt).Round(time.Millisecond))
	checkOneLeaseHolderPerAttempt(t, dbURL, enc)
}

// leaseHolders counts the processes holding leases of pending
// deliveries, at least 5 each.
func leaseHolders(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	err := conn.QueryRow(context.Background(), `SELECT count(*) FROM (SELECT lease_owner FROM deliveries
		WHERE state = 'pending' AND lease_owner IS NOT NULL GROUP BY lease_owner HAVING count(*) >= 5) o`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkOneLeaseHolderPerAttempt reads the attempt log: attempts of one
// delivery by different processes never overlap in time.
func checkOneLeaseHolderPerAttempt(t *testing.T, dbURL, enc string) {
	t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(enc)
	kr, err := seal.NewKeyring([]seal.Key{{ID: "e1", Secret: raw}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(context.Background(), dbURL, store.Config{Keys: kr})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ds, err := st.Deliveries(context.Background(), store.DeliveryFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]bool{}
	for _, d := range ds {
		_, attempts, err := st.Delivery(context.Background(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(attempts, func(i, j int) bool { return attempts[i].StartedAt.Before(attempts[j].StartedAt) })
		for i, a := range attempts {
			owners[a.Owner] = true
			if i > 0 {
				prev := attempts[i-1]
				if prev.Owner != a.Owner && prev.StartedAt.Add(prev.Duration).After(a.StartedAt) {
					t.Fatalf("delivery %d: attempts by %s and %s overlap", d.ID, prev.Owner, a.Owner)
				}
			}
		}
	}
	if len(owners) < 2 {
		t.Errorf("attempts by %d processes; both should have delivered", len(owners))
	}
}
