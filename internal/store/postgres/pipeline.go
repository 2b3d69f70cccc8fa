package postgres

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/groupcommit"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// commitOp is one save's commit in a batch, and what came of it.
type commitOp struct {
	prepared *sqlstore.Prepared
	conflict bool
	recordID int64
}

// The saves of a batch are written in pipelines: each step of every save
// in one round trip (pgx.Batch), instead of a round trip per statement of
// each save, which on a busy machine costs more than the statements. The
// steps are those of sqlstore.Commit: (1) for saves by email, the email's
// lock and the check that it still finds the record read; (2) the
// records; (3) the events; (4) the deliveries. A save that finds a
// conflict at (1) or (2) writes nothing more and is answered
// store.ErrConflict.

// finishOp is one attempt to record, and its delivery's new state.
type finishOp struct {
	store.Finished
	response []byte // sealed
}

// writeFinishes records the batch's attempts (ops are the indexes of the
// ops that carry a finishOp), all in one round trip.
func writeFinishes(ctx context.Context, t pgx.Tx, batch []*groupcommit.Request[*op], ops []int) (int, error) {
	if len(ops) == 0 {
		return -1, nil
	}
	b := &pgx.Batch{}
	var results []stepResult
	exec := func(br pgx.BatchResults) error { _, err := br.Exec(); return err }
	for i, n := range ops {
		f := batch[n].Op.finish
		b.Queue(qInsertAttempt, f.DeliveryID, f.Series, f.Number, f.Owner, f.StartedAt.UnixNano(), int64(f.Duration),
			sqlstore.NullInt(f.StatusCode), sqlstore.NullString(f.ErrorClass), f.response)
		b.Queue(qFinish, f.State, f.Number, f.NextAt.UnixNano(), f.StartedAt.Add(f.Duration).UnixNano(),
			sqlstore.NullString(f.ErrorClass), f.DeliveryID, f.Owner, f.Series)
		results = append(results, stepResult{i, exec}, stepResult{i, exec})
	}
	if failed, err := readResults(t.SendBatch(ctx, b), results); err != nil {
		if failed < 0 {
			return -1, err
		}
		return ops[failed], err
	}
	return -1, nil
}

// writeCommits writes the batch's saves (ops are the indexes of the ops
// that carry a commitOp) in t, a round trip per step. It returns the index
// in batch of the save whose statement failed, or -1, and the error.
func writeCommits(ctx context.Context, t pgx.Tx, batch []*groupcommit.Request[*op], ops []int) (int, error) {
	commits := make([]*commitOp, len(ops))
	for i, n := range ops {
		commits[i] = batch[n].Op.commit
		commits[i].conflict, commits[i].recordID = false, 0
	}
	for _, step := range [...]func(*pgx.Batch, []*commitOp) []stepResult{checkEmails, writeRecords, writeEvents, writeDeliveries} {
		b := &pgx.Batch{}
		results := step(b, commits)
		if b.Len() == 0 {
			continue
		}
		if failed, err := readResults(t.SendBatch(ctx, b), results); err != nil {
			if failed < 0 {
				return -1, err
			}
			return ops[failed], err
		}
	}
	return -1, nil
}

// stepResult reads the result of one queued statement into the commit at
// index commit of the step's commits.
type stepResult struct {
	commit int
	read   func(br pgx.BatchResults) error
}

// readResults reads the results of a batch sent, in order. It returns the
// index of the commit whose statement failed, or -1 for a failure of the
// whole batch.
func readResults(br pgx.BatchResults, results []stepResult) (int, error) {
	for _, r := range results {
		if err := r.read(br); err != nil {
			br.Close()
			if transient(err) || errors.Is(err, pgx.ErrTxClosed) {
				return -1, err
			}
			return r.commit, err
		}
	}
	if err := br.Close(); err != nil {
		return -1, err
	}
	return -1, nil
}

// checkEmails queues, for each save by email, the email's lock and the
// lookup of the newest record with the email (see tx.ByEmail). The lock
// is the transaction's, so it does not keep two saves of one batch apart,
// and both look before either writes: the second save by an email already
// looked up in the batch is answered a conflict at once, and starts over
// from a fresh read (which then finds the first one's record).
//
// The locks are taken in the order of their keys, and every batch takes
// all of its email locks before any record's row lock (writeRecords, in
// the order of the records' keys): two processes' batches then never wait
// for each other in a circle, so PostgreSQL has no deadlock to break.
func checkEmails(b *pgx.Batch, commits []*commitOp) []stepResult {
	type lookup struct {
		lock   string
		commit int
	}
	var lookups []lookup
	seen := map[string]bool{}
	for i, c := range commits {
		p := c.prepared
		if !p.ByEmail() {
			continue
		}
		l := p.Commit.Lookup
		lock := "email\x1f" + l.ClientID + "\x1f" + l.AssessmentType + "\x1f" + hex.EncodeToString(p.Indexes[0])
		if seen[lock] {
			c.conflict = true
			continue
		}
		seen[lock] = true
		lookups = append(lookups, lookup{lock, i})
	}
	slices.SortFunc(lookups, func(a, b lookup) int { return strings.Compare(a.lock, b.lock) })
	var out []stepResult
	for _, lk := range lookups {
		i, c := lk.commit, commits[lk.commit]
		p, l := c.prepared, c.prepared.Commit.Lookup
		b.Queue(qLockEmail, lk.lock)
		out = append(out, stepResult{i, func(br pgx.BatchResults) error { _, err := br.Exec(); return err }})
		b.Queue(qVersionByEmail, l.ClientID, l.AssessmentType, p.Indexes)
		out = append(out, stepResult{i, func(br pgx.BatchResults) error {
			k := record.Key{ClientID: l.ClientID, AssessmentType: l.AssessmentType}
			var version int64
			err := br.QueryRow().Scan(&k.PatientUUID, &version)
			found := err == nil
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("find record by email: %w", err)
			}
			c.conflict = !p.StillFinds(k, version, found)
			return nil
		}})
	}
	return out
}

// writeRecords queues the insert or the versioned update of each record,
// in the order of the records' keys (see checkEmails).
func writeRecords(b *pgx.Batch, commits []*commitOp) []stepResult {
	order := make([]int, 0, len(commits))
	for i, c := range commits {
		if !c.conflict {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(x, y int) int {
		a, b := commits[x].prepared.Row.Key, commits[y].prepared.Row.Key
		return cmp.Or(strings.Compare(a.ClientID, b.ClientID), strings.Compare(a.PatientUUID, b.PatientUUID),
			strings.Compare(a.AssessmentType, b.AssessmentType))
	})
	var out []stepResult
	for _, i := range order {
		c := commits[i]
		p, r := c.prepared, &c.prepared.Row
		form, assessment := sqlstore.ToNull(r.FormCompletedAt), sqlstore.ToNull(r.AssessmentCompletedAt)
		k := r.Key
		switch {
		case p.Commit.Previous == nil:
			b.Queue(qInsertRecord, k.ClientID, k.PatientUUID, k.AssessmentType, r.FunnelID, r.EmailIndex, r.Sealed,
				r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), form, assessment)
		case p.Reindex:
			b.Queue(qUpdateRecord, r.FunnelID, r.EmailIndex, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment,
				k.ClientID, k.PatientUUID, k.AssessmentType, p.Commit.Previous.Version)
		default:
			b.Queue(qRewriteRecord, r.FunnelID, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment,
				k.ClientID, k.PatientUUID, k.AssessmentType, p.Commit.Previous.Version)
		}
		out = append(out, stepResult{i, func(br pgx.BatchResults) error {
			id, err := returnedID(br.QueryRow())
			if err != nil {
				return fmt.Errorf("write record: %w", err)
			}
			c.recordID, c.conflict = id, id == 0
			return nil
		}})
	}
	return out
}

// writeEvents queues the events of each record written.
func writeEvents(b *pgx.Batch, commits []*commitOp) []stepResult {
	var out []stepResult
	for i, c := range commits {
		if c.conflict {
			continue
		}
		for j := range c.prepared.Events {
			e := &c.prepared.Events[j]
			b.Queue(qInsertEvent, c.recordID, e.Event.FunnelID, string(e.Event.DataType), e.Event.Model, e.Event.CreatedAt.UnixNano(),
				e.Sealed, e.SealedFHIR, e.Snapshot)
			out = append(out, stepResult{i, func(br pgx.BatchResults) error {
				if err := br.QueryRow().Scan(&e.Event.ID); err != nil {
					return fmt.Errorf("write event: %w", err)
				}
				return nil
			}})
		}
	}
	return out
}

// writeDeliveries queues the deliveries of each event written.
func writeDeliveries(b *pgx.Batch, commits []*commitOp) []stepResult {
	var out []stepResult
	for i, c := range commits {
		if c.conflict {
			continue
		}
		for j := range c.prepared.Events {
			e := &c.prepared.Events[j]
			for k := range e.Deliveries {
				d := &e.Deliveries[k]
				d.EventID = e.Event.ID
				b.Queue(qInsertDelivery, d.MessageID, d.EventID, c.recordID, d.Key.ClientID, d.Destination, string(d.DataType),
					d.State, d.Series, d.NextAt.UnixNano(), d.CreatedAt.UnixNano(), d.UpdatedAt.UnixNano())
				out = append(out, stepResult{i, func(br pgx.BatchResults) error {
					if err := br.QueryRow().Scan(&d.ID); err != nil {
						return fmt.Errorf("write delivery: %w", err)
					}
					return nil
				}})
			}
		}
	}
	return out
}

// returnedID reads the id a RETURNING clause gave, 0 for no row.
func returnedID(r pgx.Row) (int64, error) {
	var id int64
	if err := r.Scan(&id); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, err
	}
	return id, nil
}
