package console_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/httpapi"
	"github.com/pads-dev/pads/internal/metrics"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// benchConfig is storetest's clients (acme: destinations d1 and d2) and an
// admin.
const benchConfig = storetest.Config + `
admins:
  - id: ops
    apiKeys: [{key: ops-bench-key-0123456789}]
`

// BenchmarkConsoleWith100000Deliveries times the console's pages, through
// the whole HTTP stack and the audit log, on a store holding 100,000
// deliveries made over the last day (50,000 records, two destinations):
// d1's all delivered, d2's one in ten failed, and the newest 2,000 still
// pending. SQLite always, PostgreSQL when PADS_TEST_POSTGRES_URL is set.
// Seeding takes about 10 s on SQLite and under a minute on PostgreSQL:
//
//	go test -run '^$' -bench Console -benchtime 20x ./internal/console
func BenchmarkConsoleWith100000Deliveries(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B, cfg store.Config) (store.Store, error)
	}{
		{"sqlite", func(b *testing.B, cfg store.Config) (store.Store, error) {
			return sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "pads.db"), cfg)
		}},
		{"postgres", func(b *testing.B, cfg store.Config) (store.Store, error) {
			if os.Getenv("PADS_TEST_POSTGRES_URL") == "" {
				b.Skip("PADS_TEST_POSTGRES_URL is not set")
			}
			return postgres.Open(context.Background(), pgtest.NewDatabase(b), cfg)
		}},
	}
	for _, db := range stores {
		b.Run(db.name, func(b *testing.B) {
			st, err := db.open(b, store.Config{Keys: storetest.Keyring(b, "e1")})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			start := time.Now()
			now := seed(b, st, 50_000)
			b.Logf("%s: seeded 100,000 deliveries in %v", db.name, time.Since(start).Round(time.Second))
			base, client := serve(b, st)
			oldest, err := st.DeliveryPage(context.Background(), store.DeliveryQuery{To: now.Add(-23 * time.Hour), Limit: 1})
			if err != nil || len(oldest) != 1 {
				b.Fatalf("a delivery of 23 hours ago: %v %v", oldest, err)
			}
			deep := strconv.FormatInt(oldest[0].CreatedAt.UnixNano(), 10) + "." + strconv.FormatInt(oldest[0].ID, 10)
			for _, p := range []struct{ name, path string }{
				{"overview", "/admin/"},
				{"deliveries", "/admin/console/deliveries"},
				{"deliveries-page-after-96000", "/admin/console/deliveries?after=" + deep},
				{"deliveries-client", "/admin/console/deliveries?scope=acme"},
				{"deliveries-destination", "/admin/console/deliveries?scope=acme/d2"},
				{"deliveries-destination-failed", "/admin/console/deliveries?scope=acme/d2&state=failed"},
				{"deliveries-failed", "/admin/console/deliveries?state=failed"},
				{"deliveries-sensitive-last-hour", "/admin/console/deliveries?type=sensitive&since=1h"},
				{"deliveries-between", "/admin/console/deliveries?" + url.Values{"since": {now.Add(-13 * time.Hour).Format(time.RFC3339)},
					"until": {now.Add(-12 * time.Hour).Format(time.RFC3339)}}.Encode()},
				{"delivery", "/admin/console/deliveries/" + strconv.FormatInt(oldest[0].ID, 10)},
				{"replay-count", "/admin/console/replays?scope=acme/d2&since=24h"},
				{"audit", "/admin/console/audit?action=deliveries.list"},
			} {
				b.Run(p.name, func(b *testing.B) {
					for b.Loop() {
						get(b, client, base+p.path)
					}
				})
			}
		})
	}
}

// seed saves n records, each enqueuing a delivery to d1 and one to d2,
// spread evenly over the day before the returned time, then finishes
// them as BenchmarkConsoleWith100000Deliveries says.
func seed(b *testing.B, st store.Store, n int) time.Time {
	ctx := context.Background()
	now := time.Now().UTC()
	var made atomic.Int64
	saves := storetest.SavesFor(st, storetest.Clients)
	saves.Now = func() time.Time {
		return now.Add(-24*time.Hour + time.Duration(made.Load())*24*time.Hour/time.Duration(n))
	}
	parallel(n, func(i int) error {
		_, err := saves.Save(ctx, "acme", storetest.Request("acme", "", fmt.Sprintf("p%d@example.com", i),
			record.Fields{FormCompleted: new(true), FirstName: new("Ada")}))
		made.Add(1)
		return err
	}, b)
	// Claim every delivery but the newest 2,000, oldest first.
	var claimed []store.Claimed
	for len(claimed) < 2*n-2000 {
		c, err := st.Claim(ctx, store.ClaimRequest{Owner: "bench", Now: now, LeaseUntil: now.Add(time.Hour), Limit: min(1000, 2*n-2000-len(claimed))})
		if err != nil || len(c) == 0 {
			b.Fatalf("claim: %v (%d claimed)", err, len(claimed))
		}
		claimed = append(claimed, c...)
	}
	parallel(len(claimed), func(i int) error {
		c := claimed[i]
		f := store.Finished{Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID, Series: 1, Number: 1, Owner: "bench",
			StartedAt: c.CreatedAt.Add(time.Second), Duration: time.Duration(20+c.ID%180) * time.Millisecond, StatusCode: 200}, State: store.Delivered}
		if c.Destination == "d2" && c.ID%10 == 0 {
			f.State, f.StatusCode, f.ErrorClass, f.Response = store.Failed, 503, "http_5xx", []byte(`{"error":"unavailable"}`)
		}
		return st.Finish(ctx, f)
	}, b)
	return now
}

// parallel runs fn(0..n-1) on 64 goroutines.
func parallel(n int, fn func(i int) error, b *testing.B) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := fn(i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}

// serve starts pads' HTTP API over st and returns its address and a
// client signed in to the console.
func serve(b *testing.B, st store.Store) (string, *http.Client) {
	cfg, err := config.Parse([]byte(benchConfig), func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	tokens, err := auth.NewTokens("pads", []auth.Key{{ID: "k1", Secret: make([]byte, 32)}}, time.Now)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{
		Logger: slog.New(slog.DiscardHandler), Config: func() *config.Config { return cfg }, Tokens: tokens, Throttle: auth.NewThrottle(10, time.Minute, time.Now),
		Store: st, Operator: operator.New(st, nil, nil), Metrics: metrics.New(), Now: time.Now, ServiceName: "pads",
	}))
	b.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	body := get(b, client, srv.URL+"/admin/console/signin")
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	resp, err := client.PostForm(srv.URL+"/admin/console/signin", url.Values{"csrf": {token[1]}, "username": {"ops"}, "key": {"ops-bench-key-0123456789"}})
	if err != nil || resp.StatusCode != 200 || resp.Request.URL.Path != "/admin/" {
		b.Fatalf("sign in: %v %v", resp, err)
	}
	resp.Body.Close()
	return srv.URL, client
}

func get(b *testing.B, client *http.Client, u string) string {
	resp, err := client.Get(u)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.Fatalf("GET %s: %d\n%s", u, resp.StatusCode, body)
	}
	return string(body)
}
