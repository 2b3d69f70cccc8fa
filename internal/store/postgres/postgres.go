// Package postgres is the Store for several pads processes sharing one
// PostgreSQL database (pgx/v5, pgxpool).
//
// It writes the same saves as the embedded store (sqlstore.Prepare seals
// them), a batch's saves together in a round trip per step. What several
// processes add:
//
//   - A commit checks its record's version in its UPDATE's WHERE clause,
//     and a create inserts with ON CONFLICT DO NOTHING on the record's
//     key, so a save that raced another process's finds out and is read
//     again. A save by email first takes a transaction-scoped advisory
//     lock on (client, assessment type, email index), so two processes
//     creating a record for one email run one after the other. Batches
//     that deadlock are run again whole.
//   - Claims take rows with FOR UPDATE SKIP LOCKED under a lease, so each
//     delivery is tried by one process at a time; a killed process's leases
//     run out and another process takes its deliveries over.
//   - Saves, claims and finishes are batched into shared transactions
//     (group commit) by a few writer loops (writer.go), so throughput
//     grows with connections, not round trips.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/groupcommit"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// Store is the PostgreSQL implementation of store.Store. Its cold paths
// (console, replay, audit, revocations, reseal) are sqlstore.Shared's over
// the pool (reads) and the writer loops (writes).
type Store struct {
	*sqlstore.Shared
	cfg    store.Config
	codec  sqlstore.Codec
	pool   *pgxpool.Pool
	closed atomic.Bool
	q      *groupcommit.Queue[*op]
	keys   *sqlstore.Keys // which records may be stored: a new patient's save reads nothing
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (postgres://...), runs its
// migrations and starts the batch workers.
func Open(ctx context.Context, url string, cfg store.Config) (*Store, error) {
	cfg = cfg.WithDefaults()
	if cfg.Keys == nil {
		return nil, errors.New("postgres: no keyring (store.Config.Keys)")
	}
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad database URL: %w", errors.Unwrap(err))
	}
	if pc.MaxConns < writeLoops+4 {
		pc.MaxConns = writeLoops + 4 // batch workers, plus reads and the dispatcher's queries
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{cfg: cfg, codec: sqlstore.Codec{Keys: cfg.Keys}, pool: pool}
	s.Shared = sqlstore.NewShared(db{s}, s.codec)
	s.keys = sqlstore.LoadKeys(ctx, db{s}, cfg.Logger)
	s.q = groupcommit.New[*op](writeLoops, cfg.MaxBatch*writeLoops)
	for range writeLoops {
		go s.run()
	}
	return s, nil
}

// Find reads the record a save of l would change.
func (s *Store) Find(ctx context.Context, l store.Lookup) (*store.Stored, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	var row pgx.Row
	if s.keys.New(l) {
		return nil, nil // a new patient, as far as this process knows
	}
	if l.PatientUUID != "" {
		row = s.pool.QueryRow(ctx, qFindByKey, l.ClientID, l.PatientUUID, l.AssessmentType)
	} else {
		row = s.pool.QueryRow(ctx, qFindByEmail, l.ClientID, l.AssessmentType, s.codec.EmailIndexes(l.ClientID, l.Email))
	}
	r, found, err := sqlstore.ScanRow(row)
	if err != nil {
		return nil, fmt.Errorf("find record: %w", unavailable(err))
	}
	if !found {
		return nil, nil
	}
	return s.codec.Stored(r)
}

// Commit seals c's record and payloads on the caller's goroutine, then
// queues the outcome for a writer loop's next batch, whose saves go to
// the database together (pipeline.go), and waits for its commit. A
// conflict is the save's answer, not a failure of the batch: the loop
// wrote nothing of it.
func (s *Store) Commit(ctx context.Context, c store.Commit) (store.Committed, error) {
	p, err := sqlstore.Prepare(s.codec, c)
	if err != nil {
		return store.Committed{}, err
	}
	s.keys.Committing(c)
	o := &op{commit: &commitOp{prepared: p}}
	if err := s.do(ctx, o); err != nil {
		return store.Committed{}, err
	}
	if o.commit.conflict {
		return store.Committed{}, store.ErrConflict
	}
	return p.Committed(), nil
}

// Get returns a client's record.
func (s *Store) Get(ctx context.Context, key record.Key) (record.Record, error) {
	if s.closed.Load() {
		return record.Record{}, store.ErrClosed
	}
	row, found, err := sqlstore.ScanRow(s.pool.QueryRow(ctx, qFindByKey, key.ClientID, key.PatientUUID, key.AssessmentType))
	if err != nil {
		return record.Record{}, fmt.Errorf("get record: %w", unavailable(err))
	}
	if !found {
		return record.Record{}, store.ErrNotFound
	}
	return s.codec.OpenRecord(row)
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Close commits the queued work and closes the pool.
func (s *Store) Close() error {
	s.closed.Store(true)
	s.q.Stop()
	s.keys.Stop()
	s.pool.Close()
	return nil
}

// db is sqlstore.DB over the pool (reads) and the writer loops (writes).
type db struct{ s *Store }

func (d db) Query(ctx context.Context, q string, args ...any) (sqlstore.Rows, error) {
	rows, err := d.s.pool.Query(ctx, sqlstore.Rebind(q), args...)
	if err != nil {
		return nil, unavailable(err)
	}
	return rows, nil
}

func (d db) QueryRow(ctx context.Context, q string, args ...any) sqlstore.Scanner {
	return d.s.pool.QueryRow(ctx, sqlstore.Rebind(q), args...)
}

func (d db) Write(ctx context.Context, stmts ...sqlstore.Stmt) ([]int64, error) {
	o := &op{exec: stmts}
	if err := d.s.do(ctx, o); err != nil {
		return nil, err
	}
	return o.changed, nil
}

// WriteBeside runs stmts in a transaction of their own, beside the writer
// loops (sqlstore.DB): a deadlock or serialization failure runs it again,
// a few times, as the loops do.
func (d db) WriteBeside(ctx context.Context, stmts ...sqlstore.Stmt) ([]int64, error) {
	for attempt := 1; ; attempt++ {
		var changed []int64
		err := pgx.BeginFunc(ctx, d.s.pool, func(t pgx.Tx) error {
			var err error
			changed, err = execStmts(ctx, t, stmts)
			return err
		})
		if err != nil && transient(err) && attempt < 8 {
			time.Sleep(time.Duration(attempt) * 5 * time.Millisecond)
			continue
		}
		if err != nil {
			return nil, unavailable(err)
		}
		return changed, nil
	}
}
