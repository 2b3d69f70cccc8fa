package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// Three crashes under load, on each store: every save answered 2xx reads
// back with every value sent, and its delivery arrived at least once.
// loadtest/crash.sh runs twenty.
func TestNothingAcknowledgedIsLostOverThreeCrashes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pads and kills it under load")
	}
	bin := filepath.Join(t.TempDir(), "pads")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/pads-dev/pads/cmd/pads").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tt := range []struct {
		name     string
		database func(t testing.TB) string
	}{
		{"SQLite", func(testing.TB) string { return "" }},
		{"PostgreSQL", pgtest.NewDatabase},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Cycle(context.Background(), Options{
				Pads: bin, Database: tt.database(t), Dir: t.TempDir(), Crashes: 3,
				Rate: 200, Workers: 16, MinUp: 300 * time.Millisecond, MaxUp: time.Second,
				Settle: 30 * time.Second, ReceiverDelay: 20 * time.Millisecond, Progress: testWriter{t},
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(rep)
			if rep.Acknowledged == 0 || !rep.OK() {
				t.Fatalf("%v (bad signatures %d) %v", rep, rep.BadSignatures, rep.Examples)
			}
		})
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
