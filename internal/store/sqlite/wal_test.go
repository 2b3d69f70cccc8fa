package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
				if _, err := s.Save(ctx, walSave(g, i)); err != nil {
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
			rec, err := s.Get(ctx, record.Key{ClientID: req.ClientID, PatientUUID: req.PatientUUID, AssessmentType: req.AssessmentType})
			if err != nil {
				t.Fatalf("saver %d save %d: %v", g, i, err)
			}
			if got := rec.Fields["heartRateBpm"]; got != float64(60+i%40) {
				t.Errorf("saver %d save %d: heartRateBpm = %v", g, i, got)
			}
		}
	}
}

func walSave(g, i int) store.SaveRequest {
	return store.SaveRequest{ClientID: "acme", AssessmentType: "faceScan", FunnelID: "acme-main",
		PatientUUID: fmt.Sprintf("00000000-0000-4000-8000-%06d%06d", g, i),
		Email:       fmt.Sprintf("p%d.%d@example.org", g, i),
		Patch:       record.Patch{"assessmentType": "faceScan", "heartRateBpm": float64(60 + i%40), "notes": "a note long enough to fill pages faster than a bare key would"}}
}
