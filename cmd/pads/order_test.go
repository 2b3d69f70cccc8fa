package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// A receiver that fails a record's non-sensitive delivery until every other
// record's results have arrived gets the record's sensitive delivery only
// after its non-sensitive one succeeds. Other records go on meanwhile: were
// they held up behind it, its retries would run out first and the test
// fails, whatever the machine's speed. Their latency is logged. On both
// stores.
func TestARecordsSensitiveDeliveryWaitsForItsIdentity(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			database := ""
			if db == "postgres" {
				if os.Getenv("PADS_TEST_POSTGRES_URL") == "" && os.Getenv("CI") == "" {
					t.Skip("PADS_TEST_POSTGRES_URL is not set")
				}
				database = "database: " + pgtest.NewDatabase(t) + "\n"
			}
			testRecordOrder(t, database)
		})
	}
}

type arrival struct {
	email, event string
	at           time.Time
}

func testRecordOrder(t *testing.T, database string) {
	var mu sync.Mutex
	var arrivals []arrival
	const others = 40
	failures := 0
	var rc *receiver
	rc = newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		var body struct{ Email string }
		json.Unmarshal(rc.all()[n].body, &body)
		mu.Lock()
		defer mu.Unlock()
		event := r.Header.Get("X-Pads-Event")
		if body.Email == "held@example.com" && event == "non-sensitive" && (failures < 2 || othersDone(arrivals) < others) {
			failures++
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		arrivals = append(arrivals, arrival{body.Email, event, time.Now()})
	})
	dir := t.TempDir()
	path := writeConfig(t, dir, fmt.Sprintf(`listen: 127.0.0.1:0
dataDir: %s
%sdestinations: {allowPrivateNetworks: true, allowPlainHTTP: true}
clients:
  - id: acme
    apiKeys: [{key: %s}]
    subscription: full
    funnels: [{id: acme-main}]
    destinations:
      - type: webhook
        url: %s
        retry: {attempts: 20, initialDelay: 3s, multiplier: 1}   # a minute of retries: the others may take that long on a loaded machine
`, filepath.Join(dir, "data"), database, acmeKey, rc.srv.URL))
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")

	completeForm(t, s, tok, "acme-main", "held@example.com")
	completeAssessment(t, s, tok, "acme-main", "held@example.com")
	// Other records, each with both deliveries, while the held one waits.
	answered := map[string]time.Time{}
	for i := range others {
		email := fmt.Sprintf("other%d@example.com", i)
		completeForm(t, s, tok, "acme-main", email)
		completeAssessment(t, s, tok, "acme-main", email)
		answered[email] = time.Now()
	}
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(arrivals) == 2*(others+1)
	})
	mu.Lock()
	defer mu.Unlock()
	var identity, results time.Time
	for _, a := range arrivals {
		if a.email == "held@example.com" {
			if a.event == "non-sensitive" {
				identity = a.at
			} else {
				results = a.at
			}
		}
	}
	if failures < 2 || identity.IsZero() || results.IsZero() || !results.After(identity) {
		t.Fatalf("held record: %d failed attempts, identity delivered %v, results %v; want results after identity", failures, identity, results)
	}
	// Each other record: identity first, and its latency from the answer
	// to its sensitive delivery.
	var latencies []time.Duration
	seen := map[string]string{}
	for _, a := range arrivals {
		if !strings.HasPrefix(a.email, "other") {
			continue
		}
		if a.event == "sensitive" {
			if seen[a.email] != "non-sensitive" {
				t.Fatalf("%s: results before identity", a.email)
			}
			latencies = append(latencies, a.at.Sub(answered[a.email]))
		}
		seen[a.email] = a.event
	}
	slices.Sort(latencies)
	p99 := latencies[len(latencies)*99/100]
	t.Logf("held record: identity after %d failures, results %v after it; other records (%d): p50 %v, p99 %v from answer to results",
		failures, results.Sub(identity).Round(time.Millisecond), others, latencies[len(latencies)/2].Round(time.Millisecond), p99.Round(time.Millisecond))
}

// othersDone counts the other records whose results have arrived.
func othersDone(arrivals []arrival) int {
	n := 0
	for _, a := range arrivals {
		if strings.HasPrefix(a.email, "other") && a.event == "sensitive" {
			n++
		}
	}
	return n
}
