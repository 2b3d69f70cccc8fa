// Package postgres is the Store for several pads processes sharing one
// PostgreSQL database (pgx/v5, pgxpool).
//
// It runs the same commits as the embedded store (sqlstore.Commit). What
// several processes add:
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
//   - Saves are batched into shared transactions (group commit) by a few
//     workers, so throughput grows with connections, not round trips.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/groupcommit"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// batchWorkers is how many transactions of batched work run at once.
const batchWorkers = 4

// Store is the PostgreSQL implementation of store.Store.
type Store struct {
	cfg    store.Config
	codec  sqlstore.Codec
	pool   *pgxpool.Pool
	closed atomic.Bool
	b      *groupcommit.Batcher[pgx.Tx]
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
	if pc.MaxConns < batchWorkers+4 {
		pc.MaxConns = batchWorkers + 4 // batch workers, plus reads and the dispatcher's queries
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
	s.b = groupcommit.New(batchWorkers, cfg.MaxBatch, s.commit, cfg.Logger)
	return s, nil
}

func (s *Store) commit(batch []*groupcommit.Op[pgx.Tx]) {
	start := time.Now()
	committed := groupcommit.CommitWithRetry(batch, s.try)
	s.cfg.ObserveCommit(time.Since(start), len(committed) > 0)
	if saves := groupcommit.CountSaves(committed); saves > 0 {
		s.cfg.ObserveBatch(saves)
	}
}

// try runs ops in one transaction (see groupcommit.CommitWithRetry). A
// deadlock or serialization failure is the batch's, not an op's: it runs
// again.
func (s *Store) try(ops []*groupcommit.Op[pgx.Tx]) (int, error) {
	for attempt := 1; ; attempt++ {
		failed, err := s.tryOnce(ops)
		if err != nil && transient(err) && attempt < 8 {
			time.Sleep(time.Duration(attempt) * 5 * time.Millisecond)
			continue
		}
		return failed, err
	}
}

func (s *Store) tryOnce(ops []*groupcommit.Op[pgx.Tx]) (int, error) {
	ctx := context.Background()
	t, err := s.pool.Begin(ctx)
	if err != nil {
		return -1, fmt.Errorf("begin: %w", err)
	}
	defer t.Rollback(ctx) // a no-op once committed
	// Saves and recorded attempts go together, a round trip per step
	// (pipeline.go); the other work (claims, replays, audit) one op at a
	// time.
	var saves, finishes []int
	for i, o := range ops {
		switch o.Input().(type) {
		case *commitOp:
			saves = append(saves, i)
			continue
		case *finishOp:
			finishes = append(finishes, i)
			continue
		}
		if err := o.Run(ctx, t); err != nil {
			if transient(err) {
				return -1, err
			}
			return i, err
		}
	}
	if len(saves) > 0 {
		if failed, err := runCommits(ctx, t, ops, saves); err != nil {
			return failed, err
		}
	}
	if len(finishes) > 0 {
		if failed, err := runFinishes(ctx, t, ops, finishes); err != nil {
			return failed, err
		}
	}
	if err := t.Commit(ctx); err != nil {
		return -1, fmt.Errorf("commit: %w", err)
	}
	return -1, nil
}

// transient reports a deadlock or serialization failure.
func transient(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// Find reads the record a save of l would change.
func (s *Store) Find(ctx context.Context, l store.Lookup) (*store.Stored, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	var row pgx.Row
	if l.PatientUUID != "" {
		row = s.pool.QueryRow(ctx, qFindByKey, l.ClientID, l.PatientUUID, l.AssessmentType)
	} else {
		row = s.pool.QueryRow(ctx, qFindByEmail, l.ClientID, l.AssessmentType, s.codec.EmailIndexes(l.Email))
	}
	r, found, err := scanRow(row)
	if err != nil {
		return nil, fmt.Errorf("find record: %w", unavailable(err))
	}
	if !found {
		return nil, nil
	}
	return s.codec.Stored(r)
}

// Commit queues c for the next group commit and waits for it. A conflict
// is the save's answer, not a failure of the batch: Commit wrote nothing
// when it found one.
func (s *Store) Commit(ctx context.Context, c store.Commit) (store.Committed, error) {
	p, err := sqlstore.Prepare(s.codec, c)
	if err != nil {
		return store.Committed{}, err
	}
	op := &commitOp{prepared: p}
	// The batch runs op in a pipeline with the other saves (tryOnce); the
	// function is never called.
	err = s.b.SaveInput(ctx, op, func(context.Context, pgx.Tx) error {
		return errors.New("postgres: a save's commit ran outside its pipeline")
	})
	switch {
	case errors.Is(err, groupcommit.ErrClosed):
		return store.Committed{}, store.ErrClosed
	case err != nil:
		return store.Committed{}, unavailable(err)
	case op.conflict:
		return store.Committed{}, store.ErrConflict
	}
	return p.Committed(), nil
}

// Get returns a client's record.
func (s *Store) Get(ctx context.Context, key record.Key) (record.Record, error) {
	if s.closed.Load() {
		return record.Record{}, store.ErrClosed
	}
	row, found, err := scanRow(s.pool.QueryRow(ctx, qFindByKey, key.ClientID, key.PatientUUID, key.AssessmentType))
	if err != nil {
		return record.Record{}, fmt.Errorf("get record: %w", unavailable(err))
	}
	if !found {
		return record.Record{}, store.ErrNotFound
	}
	return s.codec.OpenRecord(row)
}

// Reseal rewrites the records, payloads and answers not sealed under the
// first key, a page per transaction.
func (s *Store) Reseal(ctx context.Context) (store.ResealReport, error) {
	return sqlstore.Reseal(ctx, func(ctx context.Context, fn func(context.Context, sqlstore.ResealTx) error) error {
		return s.b.Do(ctx, func(ctx context.Context, t pgx.Tx) error { return fn(ctx, tx{t}) })
	}, s.codec)
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Close commits the queued work and closes the pool.
func (s *Store) Close() error {
	s.closed.Store(true)
	s.b.Stop()
	s.pool.Close()
	return nil
}
