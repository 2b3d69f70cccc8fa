package deliver_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// memOutbox is an outbox in memory with the lease rules of the real ones
// (store.Outbox's doc): it lives inside a synctest bubble, so leases,
// backoff and takeover run on the bubble's clock. The methods the
// dispatcher does not use are left to the nil interface (they panic).
type memOutbox struct {
	store.Outbox
	mu     sync.Mutex
	ds     []*memDelivery
	alive  map[string]*memHold
	claims []memClaim
	// finishes are the attempts recorded, in order.
	finishes []store.Finished
	// unavailable is how many Finishes answer ErrUnavailable first, as a
	// database restarting would.
	unavailable int
	refuseHold  bool
}

type memDelivery struct {
	store.Claimed
	owner      string
	leaseUntil time.Time
	erased     bool // gone with its patient: never claimed again
}

type memClaim struct {
	owner string
	at    time.Time
	ids   []int64
}

type memHold struct {
	box   *memOutbox
	owner string
	lost  bool
}

func newMemOutbox() *memOutbox { return &memOutbox{alive: map[string]*memHold{}} }

// add enqueues a delivery due now to acme's destination dest, and returns
// its id.
func (o *memOutbox) add(dest string) int64 { return o.addFor("acme", dest) }

// addFor enqueues a delivery due now to client's destination dest.
func (o *memOutbox) addFor(client, dest string) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	id := int64(len(o.ds) + 1)
	o.ds = append(o.ds, &memDelivery{Claimed: store.Claimed{Payload: []byte(`{}`), Delivery: store.Delivery{
		ID: id, MessageID: fmt.Sprintf("msg_%d", id), Key: record.Key{ClientID: client}, Destination: dest,
		State: store.Pending, Series: 1, NextAt: time.Now(), CreatedAt: time.Now()}}})
	return id
}

// lease leases delivery id to owner until until, as a claim would have.
func (o *memOutbox) lease(id int64, owner string, until time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ds[id-1].owner, o.ds[id-1].leaseUntil = owner, until
}

func (o *memOutbox) delivery(id int64) store.Delivery {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ds[id-1].Delivery
}

func (o *memOutbox) claimLog() []memClaim {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.claims)
}

func (o *memOutbox) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []store.Claimed
	var ids []int64
	got := map[store.DestinationRef]int{}
	for _, d := range o.ds {
		if len(out) == req.Limit {
			break
		}
		leased := d.owner != "" && d.leaseUntil.After(req.Now)
		if d.erased || d.State != store.Pending || d.NextAt.After(req.Now) || leased || slices.Contains(req.Skip, d.Ref()) ||
			got[d.Ref()] >= req.RoomFor(d.Ref()) {
			continue
		}
		got[d.Ref()]++
		d.owner, d.leaseUntil = req.Owner, req.LeaseUntil
		c := d.Claimed
		c.DueAt = d.NextAt // memOutbox keeps NextAt: it is when the delivery became due
		out = append(out, c)
		ids = append(ids, d.ID)
	}
	o.claims = append(o.claims, memClaim{owner: req.Owner, at: req.Now, ids: ids})
	return out, nil
}

func (o *memOutbox) Finish(ctx context.Context, f store.Finished) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.unavailable > 0 {
		o.unavailable--
		return fmt.Errorf("finish: %w", store.ErrUnavailable)
	}
	o.finishes = append(o.finishes, f)
	d := o.ds[f.DeliveryID-1]
	if d.owner != f.Owner {
		return nil // the lease went elsewhere: the attempt is recorded, the state is not
	}
	d.State, d.NextAt, d.Attempts, d.LastError, d.owner = f.State, f.NextAt, f.Number, f.ErrorClass, ""
	return nil
}

func (o *memOutbox) Release(ctx context.Context, owner string, ids []int64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, id := range ids {
		if d := o.ds[id-1]; d.owner == owner {
			d.owner = ""
		}
	}
	return nil
}

func (o *memOutbox) HoldOwner(ctx context.Context, owner string) (store.OwnerHold, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.refuseHold {
		return nil, errors.New("hold owner: too many clients already")
	}
	h := &memHold{box: o, owner: owner}
	o.alive[owner] = h
	return h, nil
}

// breakHolds makes every hold lost, as a database restart does.
func (o *memOutbox) breakHolds() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for owner, h := range o.alive {
		h.lost = true
		delete(o.alive, owner)
	}
}

func (h *memHold) Lost(context.Context) bool {
	h.box.mu.Lock()
	defer h.box.mu.Unlock()
	return h.lost
}

func (h *memHold) Release() {
	h.box.mu.Lock()
	defer h.box.mu.Unlock()
	if h.box.alive[h.owner] == h {
		delete(h.box.alive, h.owner)
	}
}

func (o *memOutbox) TakeOver(ctx context.Context, self string) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, d := range o.ds {
		if d.State == store.Pending && d.owner != "" && d.owner != self && o.alive[d.owner] == nil {
			d.owner = ""
			n++
		}
	}
	return n, nil
}

func (o *memOutbox) NextDue(ctx context.Context, after time.Time) (time.Time, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var at time.Time
	for _, d := range o.ds {
		if d.State == store.Pending && d.NextAt.After(after) && (at.IsZero() || d.NextAt.Before(at)) {
			at = d.NextAt
		}
	}
	return at, !at.IsZero(), nil
}

func (o *memOutbox) Held(ctx context.Context, owner string, ids []int64) ([]int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []int64
	for _, id := range ids {
		if d := o.ds[id-1]; !d.erased && d.State == store.Pending && d.owner == owner {
			out = append(out, id)
		}
	}
	return out, nil
}

// erase removes delivery id as an erasure of its patient does, leased or
// not, and reports whether it was leased then.
func (o *memOutbox) erase(id int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := o.ds[id-1]
	d.erased = true
	return d.owner != ""
}
