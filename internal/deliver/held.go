package deliver

import (
	"context"
	"time"
)

// maxCheck bounds the attempts one lease check asks about, and maxChecks
// the checks under way at once.
const (
	maxCheck  = 128
	maxChecks = 4
)

// start queues an attempt of w for the lease check, which starts it. It
// never blocks: at most Workers attempts are in flight, and starting
// holds twice as many.
func (r *runner) start(w work) {
	r.attempts.Add(1)
	r.starting <- w
}

// checkLoop asks the store, just before attempts start, whether each is
// still this process's to try (Outbox.Held): an erasure removes its
// patient's pending deliveries, claimed ones included, and returns only
// once no attempt can start. The attempts that queued up while the
// checks' slots were taken go in one query: one per attempt cost the
// SQLite store a tenth of its CPU under load. Up to maxChecks run at once: an attempt's slot is taken
// while it waits for its check, so attempts that queue behind one check
// must not also wait for it to end before theirs begins (one at a time,
// PostgreSQL's deliveries fell to 0.55-0.79 of flat-out saves, against
// 0.92-0.94 with no check at all, in loadtest/e2e). When the store cannot
// answer, the attempts go ahead, as they did before the check: the
// database an erasure writes to is the one that did not answer, and the
// attempts' records will wait for it.
func (r *runner) checkLoop() {
	checks := make(chan struct{}, maxChecks)
	for {
		var batch []work
		select {
		case <-r.quit:
			return
		case w := <-r.starting:
			batch = append(batch, w)
		}
		// Wait for a check's slot first: what queues meanwhile joins
		// this batch, instead of making more, smaller queries.
		checks <- struct{}{}
	more:
		for len(batch) < maxCheck {
			select {
			case w := <-r.starting:
				batch = append(batch, w)
			default:
				break more
			}
		}
		go func() {
			defer func() { <-checks }()
			r.checkHeld(batch)
		}()
	}
}

// checkHeld starts the attempts of batch still held, and gives back the
// slots of the others (erased with their patient, or taken over since
// their claim): no attempt, nothing to record.
func (r *runner) checkHeld(batch []work) {
	byOwner := map[string][]int64{}
	for _, w := range batch {
		byOwner[w.owner] = append(byOwner[w.owner], w.ID)
	}
	held := map[int64]bool{}
	for owner, ids := range byOwner {
		ctx, cancel := context.WithTimeout(r.hard, 5*time.Second)
		got, err := r.outbox.Held(ctx, owner, ids)
		cancel()
		if err != nil {
			r.log.Warn("check claimed deliveries before their attempts", "deliveries", len(ids), "err", err)
			for _, id := range ids {
				held[id] = true
			}
			continue
		}
		for _, id := range got {
			held[id] = true
		}
	}
	for _, w := range batch {
		if held[w.ID] {
			go r.attempt(w)
			continue
		}
		r.lanes.free(w.Ref())
		r.lanes.ended(w.Ref())
		r.lanes.forget(w.ID)
		r.attempts.Done()
	}
}
