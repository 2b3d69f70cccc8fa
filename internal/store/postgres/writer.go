package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/groupcommit"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// writeLoops is how many transactions of batched work run at once.
const writeLoops = 4

// op is one piece of write work: exactly one of its inputs is set. The
// loop fills in its answer; the caller reads it once Do returns.
type op struct {
	commit *commitOp           // a save's outcome, sealed off the loop
	claim  *store.ClaimRequest // due deliveries to lease
	finish *finishOp           // an attempt to record
	exec   []sqlstore.Stmt     // a cold path's statements, ? placeholders

	claimed []store.Claimed // claim: still sealed
	changed []int64         // exec: rows changed per statement
}

// do queues o for a loop's next batch and waits for its commit.
func (s *Store) do(ctx context.Context, o *op) error {
	err := s.q.Do(ctx, o)
	if errors.Is(err, groupcommit.ErrClosed) {
		return store.ErrClosed
	}
	return unavailable(err)
}

// run is a writer loop: take what is queued, commit it, answer it. A
// save's walk on the loop's goroutine: run -> commit -> try ->
// writeCommits, which sends the INSERTs (4 frames, all in this package).
func (s *Store) run() {
	batch := make([]*groupcommit.Request[*op], 0, s.cfg.MaxBatch)
	for {
		var ok bool
		if batch, ok = s.q.Next(batch, s.cfg.MaxBatch); !ok {
			return
		}
		s.commit(batch)
		s.q.Answer(batch)
	}
}

// commit runs batch in one transaction. An op that fails is answered with
// its error and the batch runs again without it: nothing in it was
// acknowledged yet. A deadlock or serialization failure is the batch's,
// not an op's: the batch runs again whole, a few times. Any other error
// of the transaction fails every op still in the batch. A panic fails the
// batch, not the loop.
func (s *Store) commit(batch []*groupcommit.Request[*op]) {
	defer recoverBatch(s.cfg.Logger, batch)
	start := time.Now()
	live := batch
	for attempt := 1; len(live) > 0; {
		failed, err := s.try(live)
		if failed >= 0 {
			live[failed].Fail(err)
			live = append(live[:failed:failed], live[failed+1:]...)
			continue
		}
		if err != nil && transient(err) && attempt < 8 {
			time.Sleep(time.Duration(attempt) * 5 * time.Millisecond)
			attempt++
			continue
		}
		if err != nil {
			groupcommit.FailAll(live, err)
			live = nil
		}
		break
	}
	s.cfg.ObserveCommit(time.Since(start), len(live) > 0)
	if saves := countSaves(live); saves > 0 {
		s.cfg.ObserveBatch(saves)
	}
}

// try runs ops in one transaction and returns the index of the op that
// failed (the transaction then rolled back), or -1 and the error of the
// transaction itself. Saves go together, and so do recorded attempts, a
// round trip per step (pipeline.go); claims and cold paths one at a time.
func (s *Store) try(ops []*groupcommit.Request[*op]) (int, error) {
	ctx := context.Background()
	t, err := s.pool.Begin(ctx)
	if err != nil {
		return -1, fmt.Errorf("begin: %w", err)
	}
	defer t.Rollback(ctx) // a no-op once committed
	var commits, finishes []int
	for i, r := range ops {
		var err error
		switch o := r.Op; {
		case o.commit != nil:
			commits = append(commits, i)
		case o.finish != nil:
			finishes = append(finishes, i)
		case o.claim != nil:
			o.claimed, err = claim(ctx, t, o.claim)
		default:
			o.changed, err = execStmts(ctx, t, o.exec)
		}
		if err != nil {
			if transient(err) {
				return -1, err
			}
			return i, err
		}
	}
	if failed, err := writeCommits(ctx, t, ops, commits); err != nil {
		return failed, err
	}
	if failed, err := writeFinishes(ctx, t, ops, finishes); err != nil {
		return failed, err
	}
	if err := t.Commit(ctx); err != nil {
		return -1, fmt.Errorf("commit: %w", err)
	}
	return -1, nil
}

// execStmts runs a cold path's statements and returns the rows each changed.
func execStmts(ctx context.Context, t pgx.Tx, stmts []sqlstore.Stmt) ([]int64, error) {
	changed := make([]int64, len(stmts))
	for i, st := range stmts {
		tag, err := t.Exec(ctx, sqlstore.Rebind(st.SQL), st.Args...)
		if err != nil {
			return nil, err
		}
		changed[i] = tag.RowsAffected()
	}
	return changed, nil
}

// transient reports a deadlock or serialization failure.
func transient(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// countSaves counts the saves of a batch.
func countSaves(batch []*groupcommit.Request[*op]) int {
	n := 0
	for _, r := range batch {
		if r.Op.commit != nil {
			n++
		}
	}
	return n
}

// recoverBatch turns a panic on a loop into the failure of its batch,
// logged with its stack: the loop goes on with the next batch.
func recoverBatch(log *slog.Logger, batch []*groupcommit.Request[*op]) {
	if p := recover(); p != nil {
		log.Error("panic in a database write; its batch failed", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		groupcommit.FailAll(batch, fmt.Errorf("panic in a database write: %v", p))
	}
}
