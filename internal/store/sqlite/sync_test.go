package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// TestSavesAreAnsweredAfterASyncThatHoldsThem checks the writer's promise:
// a save is answered only after a sync of the WAL that began once its
// commit was in the WAL. The sync hook notes the records another
// connection sees when a sync begins, and counts them durable when it
// returns; each save then looks for its own.
func TestSavesAreAnsweredAfterASyncThatHoldsThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pads.db")
	reader, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()

	var mu sync.Mutex
	durable := map[string]bool{}
	var syncs atomic.Int64
	policy := defaultWAL
	policy.syncWAL = func(f *os.File) error {
		syncs.Add(1)
		seen, err := patientUUIDs(ctx, reader)
		if err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, id := range seen {
			durable[id] = true
		}
		return nil
	}
	s, err := open(ctx, path, store.Config{Keys: storetest.Keyring(t, "e1")}, policy)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	saveConcurrently(t, s, 16, 10, func(req store.SaveRequest) {
		mu.Lock()
		defer mu.Unlock()
		if !durable[req.PatientUUID] {
			t.Errorf("save %s answered before a sync that holds it", req.PatientUUID)
		}
	})
	t.Logf("160 saves, %d syncs", syncs.Load())
}

func patientUUIDs(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT patient_uuid FROM records")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return store.Collect(rows, func(sc store.Scanner) (id string, err error) {
		err = sc.Scan(&id)
		return
	})
}

func TestAFailedWALSyncStopsWritesUntilReopened(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pads.db")
	var okSyncs, failedSyncs atomic.Int64
	cfg := store.Config{Keys: storetest.Keyring(t, "e1"), ObserveSync: func(_ time.Duration, err error) {
		if err != nil {
			failedSyncs.Add(1)
		} else {
			okSyncs.Add(1)
		}
	}}
	var failing atomic.Bool
	policy := defaultWAL
	policy.syncWAL = func(f *os.File) error {
		if failing.Load() {
			return syscall.EIO
		}
		return f.Sync()
	}
	s, err := open(ctx, path, cfg, policy)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Save(ctx, walSave(0, 0)); err != nil {
		t.Fatal(err)
	}

	failing.Store(true)
	if _, err := s.Save(ctx, walSave(0, 1)); !errors.Is(err, store.ErrSyncFailed) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("save whose sync failed: %v, want ErrSyncFailed with the cause", err)
	}
	failing.Store(false)
	// The disk may have lost writes it reported once: no more writes, and
	// the store says it is not ready.
	if _, err := s.Save(ctx, walSave(0, 2)); !errors.Is(err, store.ErrSyncFailed) {
		t.Fatalf("save after a failed sync: %v, want ErrSyncFailed", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, store.ErrSyncFailed) {
		t.Fatalf("Ping after a failed sync: %v, want ErrSyncFailed", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if okSyncs.Load() == 0 || failedSyncs.Load() != 1 {
		t.Fatalf("syncs observed: %d ok, %d failed; want some ok and the one failed", okSyncs.Load(), failedSyncs.Load())
	}

	s, err = Open(ctx, path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := walSave(0, 0)
	if _, err := s.Get(ctx, record.Key{ClientID: first.ClientID, PatientUUID: first.PatientUUID, AssessmentType: first.AssessmentType}); err != nil {
		t.Fatalf("the save acknowledged before the failed sync: %v", err)
	}
	if _, err := s.Save(ctx, walSave(0, 3)); err != nil {
		t.Fatalf("save after reopening: %v", err)
	}
}

func TestWALSyncsAreDeferredOnlyForTheirOwner(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "raw.db")
	owner, param := newWALOwner()
	plain, err := sql.Open("sqlite", dsn(path, false)+param)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	mustExec(t, plain, "CREATE TABLE t (id INTEGER PRIMARY KEY)")
	if w, err := deferWALSyncs(owner, nil); err == nil {
		w.Close()
		t.Fatal("deferred the syncs of a WAL open through the plain unix VFS")
	}

	other, otherParam := newWALOwner()
	db := openRaw(t, path, otherParam)
	mustExec(t, db, "INSERT INTO t (id) VALUES (1)")
	if w, err := deferWALSyncs(owner, nil); err == nil {
		w.Close()
		t.Fatal("deferred the syncs of another connection's WAL")
	}
	w, err := deferWALSyncs(other, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.f.owner != other || w.f.ownSync.Load() == nil {
		t.Fatal("the owner's WAL syncs are not deferred")
	}
	mustExec(t, db, "INSERT INTO t (id) VALUES (2)")
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || w.f.ownSync.Load() != nil {
		t.Fatalf("Close: %v; syncs still deferred: %v", err, w.f.ownSync.Load() != nil)
	}
}

// TestReadsWaitForTheSyncOfWhatTheySee: a commit is visible to other
// connections before its sync; a read that sees it must not return before
// that sync has.
func TestReadsWaitForTheSyncOfWhatTheySee(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pads.db")
	var gated, released atomic.Bool
	gate := make(chan struct{})
	policy := defaultWAL
	policy.syncWAL = func(f *os.File) error {
		if gated.Load() {
			<-gate
		}
		return f.Sync()
	}
	s, err := open(ctx, path, store.Config{Keys: storetest.Keyring(t, "e1")}, policy)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reader, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()

	gated.Store(true)
	req := walSave(1, 1)
	saved := make(chan error, 1)
	go func() { _, err := s.Save(ctx, req); saved <- err }()
	for { // committed, and visible, while its sync waits at the gate
		ids, err := patientUUIDs(ctx, reader)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	got := make(chan bool, 1)
	go func() {
		_, err := s.Get(ctx, record.Key{ClientID: req.ClientID, PatientUUID: req.PatientUUID, AssessmentType: req.AssessmentType})
		if err != nil {
			t.Error(err)
		}
		got <- released.Load()
	}()
	time.Sleep(20 * time.Millisecond) // time to return early, if it would
	released.Store(true)
	close(gate)
	if !<-got {
		t.Fatal("Get returned a save before the sync that makes it durable")
	}
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
}
