// Package sqlite is the embedded Store: one SQLite file in WAL mode with
// synchronous=FULL, so every commit syncs the WAL to disk before it is
// answered or seen by readers, and an answered save survives a crash or
// power loss. It uses SQLite's own VFS and its own durability rules.
//
// SQLite has one writer at a time, so the store has exactly one: a goroutine
// that owns the write connection and commits saves in batches (group
// commit: one transaction and one sync for every save queued meanwhile). A
// save that fails alone does not fail its neighbours (the batch is run
// again without it). Reads use a separate pool; a checkpointer keeps the
// WAL short.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// Store is the SQLite implementation of store.Store. Its cold paths
// (console, replay, audit, revocations, reseal) are sqlstore.Shared's over
// reads (the read pool) and writes (the writer loop).
type Store struct {
	*sqlstore.Shared
	path    string
	cfg     store.Config
	codec   sqlstore.Codec
	writeDB *sql.DB
	readDB  *sql.DB
	keys    *sqlstore.Keys // which records may be stored: a new patient's save reads nothing
	byKey   *sql.Stmt      // on readDB
	byEmail *sql.Stmt      // on readDB, with one index per key
	held    *sql.Stmt      // on readDB: Outbox.Held, before attempts
	w       *writer
	ckpt    *checkpointer
	closed  atomic.Bool
}

var _ store.Store = (*Store)(nil)

func dsn(path string, readOnly bool) string {
	return dsnWith(path, 10*time.Second, readOnly)
}

// dsnWith is dsn with a given busy timeout.
//
// A reader's page cache is 256 KiB, not SQLite's 2 MiB: in WAL mode a
// reader drops its whole cache at the start of a read transaction when a
// write has committed since its last one, so under saves a cache holds
// little more than one transaction's pages (a few B-tree probes), while
// eight readers' caches, filled page by page over minutes, added some
// 30 MiB to pads' memory (loadtest/soak.sh). The writer's is 16 MiB: its
// pages stay valid from one batch to the next, and each save lands on
// pages of two indexes keyed at random (the record's key and its email
// index), so with SQLite's 2 MiB most saves read a page back from the
// WAL or the file (readDbPage was 5% of pads' CPU under the save load).
//
// secure_delete: SQLite overwrites deleted content with zeros, in the
// page and in the pages it frees, so that an erased patient's rows (and a
// record's earlier versions, and what retention removed) are not left in
// free space (docs/data-lifecycle.md). It costs a delete the writes of the
// pages it frees.
func dsnWith(path string, busy time.Duration, readOnly bool) string {
	d := "file:" + path + "?_pragma=busy_timeout(" + strconv.FormatInt(busy.Milliseconds(), 10) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_pragma=secure_delete(1)"
	if readOnly {
		d += "&_pragma=query_only(1)&_pragma=cache_size(-256)"
	} else {
		d += "&_pragma=cache_size(-16384)"
	}
	return d
}

// walPolicy is how the checkpointer keeps the WAL short: how often it
// runs, and the WAL size in frames past which it rewinds the WAL (see
// checkpointer).
type walPolicy struct {
	every         time.Duration
	restartFrames int
}

// defaultWAL checkpoints once a second (four times a second made ~5% fewer
// saves in the load test: a page saved several times in a second is copied
// once) and rewinds the WAL past 65,536 frames of 4 KiB (256 MiB): about
// three seconds of saves at full load. Each rewind pauses saves for one fsync and the last frames (5 to 50
// ms measured), so rarer rewinds keep them out of the p99; 64 MiB cost 2-5
// ms of p99 in the load test.
var defaultWAL = walPolicy{every: time.Second, restartFrames: 65536}

// Open opens (creating if needed, mode 0600) the database file at path and
// runs its migrations.
func Open(ctx context.Context, path string, cfg store.Config) (*Store, error) {
	return open(ctx, path, cfg, defaultWAL)
}

func open(ctx context.Context, path string, cfg store.Config, wal walPolicy) (*Store, error) {
	cfg = cfg.WithDefaults()
	if cfg.Keys == nil {
		return nil, errors.New("sqlite: no keyring (store.Config.Keys)")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	// SQLite gives its -wal and -shm files the main file's mode: create the
	// main file private first.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	f.Close()

	s := &Store{path: path, cfg: cfg, codec: sqlstore.Codec{Keys: cfg.Keys}}
	if s.writeDB, err = sql.Open("sqlite", dsn(path, false)); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	s.writeDB.SetMaxOpenConns(1)
	conn, err := s.writeDB.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, "PRAGMA wal_autocheckpoint = 0")
	}
	if err == nil {
		err = checkFullSync(ctx, conn)
	}
	if err != nil {
		s.writeDB.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := migrate(ctx, conn); err != nil {
		conn.Close()
		s.writeDB.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if s.readDB, err = sql.Open("sqlite", dsn(path, true)); err != nil {
		conn.Close()
		s.writeDB.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	s.readDB.SetMaxOpenConns(8)
	s.readDB.SetMaxIdleConns(8)
	if err := s.prepareReads(ctx); err != nil {
		s.readDB.Close()
		conn.Close()
		s.writeDB.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	s.w, err = startWriter(ctx, conn, cfg)
	if err != nil {
		s.readDB.Close()
		conn.Close()
		s.writeDB.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	s.Shared = sqlstore.NewShared(reads{s.readDB, s.w}, s.codec)
	s.keys = sqlstore.LoadKeys(ctx, reads{s.readDB, s.w}, cfg.Logger)
	if s.ckpt, err = startCheckpointer(path, wal, &s.w.pause, cfg.Logger); err != nil {
		s.w.stop()
		s.keys.Stop()
		s.readDB.Close()
		conn.Close()
		s.writeDB.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return s, nil
}

// checkFullSync makes sure the writer's commits sync the WAL: a 2xx
// answer promises it.
func checkFullSync(ctx context.Context, conn *sql.Conn) error {
	var mode int
	if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&mode); err != nil {
		return err
	}
	if mode < 2 {
		return fmt.Errorf("the writer's synchronous mode is %d, not FULL", mode)
	}
	return nil
}

func (s *Store) prepareReads(ctx context.Context) error {
	var err error
	if s.byKey, err = s.readDB.PrepareContext(ctx, selectRow+" WHERE client_id = ? AND patient_uuid = ? AND assessment_type = ?"); err != nil {
		return err
	}
	if s.byEmail, err = s.readDB.PrepareContext(ctx, byEmailQuery(sqlstore.RowColumns, s.codec.EmailIndexCount())); err != nil {
		return err
	}
	s.held, err = s.readDB.PrepareContext(ctx, held)
	return err
}

// Find reads the record a save of l would change, outside any write
// transaction: the save's work on it runs beside other saves, and only
// its commit waits for the writer.
func (s *Store) Find(ctx context.Context, l store.Lookup) (*store.Stored, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	var row *sql.Row
	if s.keys.New(l) {
		return nil, nil // a new patient: nothing to read
	}
	if l.PatientUUID != "" {
		row = s.byKey.QueryRowContext(ctx, l.ClientID, l.PatientUUID, l.AssessmentType)
	} else {
		row = s.byEmail.QueryRowContext(ctx, emailArgs(l.ClientID, l.AssessmentType, s.codec.EmailIndexes(l.ClientID, l.Email))...)
	}
	r, found, err := sqlstore.ScanRow(row)
	if err != nil {
		return nil, fmt.Errorf("find record: %w", err)
	}
	if !found {
		return nil, nil
	}
	return s.codec.Stored(r)
}

// Commit seals c's record and payloads on the caller's goroutine, then
// queues the outcome for the writer's next batch and waits for its
// commit. A conflict is the save's answer, not a failure of the batch:
// the writer wrote nothing of it.
func (s *Store) Commit(ctx context.Context, c store.Commit) (store.Committed, error) {
	p, err := sqlstore.Prepare(s.codec, c)
	if err != nil {
		return store.Committed{}, err
	}
	s.keys.Committing(c)
	o := &op{commit: p}
	if err := s.w.do(ctx, o); err != nil {
		return store.Committed{}, err
	}
	if o.conflict {
		return store.Committed{}, store.ErrConflict
	}
	return p.Committed(), nil
}

// Get returns a client's record.
func (s *Store) Get(ctx context.Context, key record.Key) (record.Record, error) {
	if s.closed.Load() {
		return record.Record{}, store.ErrClosed
	}
	row, found, err := sqlstore.ScanRow(s.byKey.QueryRowContext(ctx, key.ClientID, key.PatientUUID, key.AssessmentType))
	if err != nil {
		return record.Record{}, fmt.Errorf("get record: %w", err)
	}
	if !found {
		return record.Record{}, store.ErrNotFound
	}
	return s.codec.OpenRecord(row)
}

// Ping checks that the database file can be read and, when the last
// write failed for want of room (a full disk) or on a failing disk, that
// a write commits again: it rewrites the probe row, through the writer,
// like a save. So readiness fails while saves would, and comes back by
// itself once space is freed, even with no save arriving to show it.
// Errors: store.ErrUnavailable while the disk takes no write.
func (s *Store) Ping(ctx context.Context) error {
	if s.w.noRoom.Load() {
		_, err := s.w.Write(ctx, sqlstore.Stmt{SQL: `INSERT INTO probe (id, probed_at) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at`, Args: []any{time.Now().UnixNano()}})
		if err != nil {
			return fmt.Errorf("ping: %w", err)
		}
		s.w.noRoom.Store(false)
	}
	var one int
	return s.readDB.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Close stops taking saves, commits those queued, and closes the database.
func (s *Store) Close() error {
	s.closed.Store(true)
	s.w.stop()
	s.keys.Stop()
	s.ckpt.stop()
	s.byKey.Close()
	s.byEmail.Close()
	s.held.Close()
	return errors.Join(s.readDB.Close(), s.writeDB.Close())
}

// reads is sqlstore.DB over the read pool and the writer.
type reads struct {
	db *sql.DB
	*writer
}

func (r reads) Query(ctx context.Context, q string, args ...any) (sqlstore.Rows, error) {
	rows, err := r.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, storeError(err)
	}
	return sqlRows{rows}, nil
}

func (r reads) QueryRow(ctx context.Context, q string, args ...any) sqlstore.Scanner {
	return r.db.QueryRowContext(ctx, q, args...)
}

// sqlRows is database/sql's rows as sqlstore.Rows.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }
