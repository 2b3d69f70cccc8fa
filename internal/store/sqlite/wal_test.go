package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// Under saves that never pause, the WAL must still start over: without the
// checkpointer's RESTART it grows by every page every save writes.
func TestWALStaysShortUnderSteadySaves(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pads.db")
	ctx := context.Background()
	cfg := store.Config{Keys: storetest.Keyring(t, "e1")}
	s, err := open(ctx, path, cfg, walPolicy{every: 5 * time.Millisecond, restartFrames: 256})
	if err != nil {
		t.Fatal(err)
	}

	saves := storetest.Saves(t, s)
	const savers, each = 16, 250
	var largest atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > largest.Load() {
				largest.Store(st.Size())
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	for g := range savers {
		wg.Go(func() {
			for i := range each {
				if _, err := saves.Save(ctx, "acme", walSave(g, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled

	// 4,000 saves write about 40 MB of frames; a rewound WAL holds a few
	// hundred frames of 4 KiB.
	if max := largest.Load(); max > 16<<20 {
		t.Errorf("the WAL grew to %d bytes under steady saves; want it rewound (< 16 MiB)", max)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Nothing committed is lost by rewinding.
	s, err = Open(ctx, path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for g := range savers {
		for _, i := range []int{0, each / 2, each - 1} {
			req := walSave(g, i)
			rec, err := s.Get(ctx, record.Key{ClientID: "acme", PatientUUID: req.PatientUUID, AssessmentType: req.AssessmentType})
			if err != nil {
				t.Fatalf("saver %d save %d: %v", g, i, err)
			}
			if got := rec.Fields.HeartRateBpm; got == nil || *got != float64(60+i%40) {
				t.Errorf("saver %d save %d: heartRateBpm = %v", g, i, got)
			}
		}
	}
}

func walSave(g, i int) *storetest.SaveRequest {
	return storetest.Request("acme", fmt.Sprintf("00000000-0000-4000-8000-%06d%06d", g, i), fmt.Sprintf("p%d.%d@example.org", g, i),
		record.Fields{HeartRateBpm: new(float64(60 + i%40)), City: new("a city name long enough to fill pages faster than a bare key would")})
}

type countingLocker struct {
	sync.Mutex
	locks atomic.Int32
}

func (l *countingLocker) Lock() { l.locks.Add(1); l.Mutex.Lock() }

// A reader that holds an old snapshot keeps the WAL from being rewound;
// the checkpointer then holds off instead of pausing the writer for it on
// every tick.
func TestRewindHoldsOffWhileAReaderHoldsTheWAL(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pads.db")
	ctx := context.Background()
	idle := walPolicy{every: time.Hour, restartFrames: 16}
	s, err := open(ctx, path, store.Config{Keys: storetest.Keyring(t, "e1")}, idle)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saves := storetest.Saves(t, s)
	for i := range 20 {
		if _, err := saves.Save(ctx, "acme", walSave(0, i)); err != nil {
			t.Fatal(err)
		}
	}
	reader, err := s.readDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	var n int
	if _, err := reader.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := reader.QueryRowContext(ctx, "SELECT count(*) FROM records").Scan(&n); err != nil || n != 20 {
		t.Fatalf("count = %d, %v", n, err)
	}
	defer reader.ExecContext(ctx, "ROLLBACK")
	for i := 20; i < 40; i++ {
		if _, err := saves.Save(ctx, "acme", walSave(0, i)); err != nil {
			t.Fatal(err)
		}
	}

	pause := &countingLocker{}
	c, err := startCheckpointer(path, idle, pause, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.stop()
	const ticks = rewindHoldOff + 2
	for range ticks {
		c.checkpoint(ctx)
	}
	if got := pause.locks.Load(); got != 2 {
		t.Errorf("over %d ticks with a reader holding the WAL the writer was paused %d times, want 2", ticks, got)
	}
}

// A panic in a checkpoint is recovered and logged, and the next tick runs.
func TestAPanicInTheCheckpointerSkipsOneTick(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	var mu sync.Mutex
	c, err := newCheckpointer(filepath.Join(t.TempDir(), "pads.db"), walPolicy{every: time.Millisecond, restartFrames: 16},
		&sync.Mutex{}, slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var ticks atomic.Int32
	third := make(chan struct{})
	c.tick = func(ctx context.Context) {
		switch ticks.Add(1) {
		case 1:
			panic("boom")
		case 3:
			close(third)
		}
	}
	c.start()
	select {
	case <-third:
	case <-time.After(time.Minute):
		t.Fatalf("%d ticks after a panic, want the checkpointer to go on", ticks.Load())
	}
	c.stop()
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "panic in the SQLite checkpointer") || !strings.Contains(logs.String(), "boom") {
		t.Fatalf("log:\n%s", logs.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
