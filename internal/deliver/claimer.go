package deliver

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// claimer claims due deliveries into one line (lane) per destination and
// starts what the limits allow, so that destinations that hang or answer
// slowly never delay the others (docs/delivery.md, "Fair share"):
//
//   - a destination with nothing in flight may always start one attempt
//     (while any worker is free);
//   - a destination's second and later attempts in flight only come from
//     the first half of the workers: the other half is kept for
//     destinations starting their first, so up to Workers/2-1 destinations
//     may hang at once before one that comes next waits;
//   - a destination's share: with n destinations holding claimed work, each
//     may have at most (Workers/2)/(n+1) attempts in flight (at least 1,
//     at most PerDestination);
//   - a client's cap: one client's destinations together have at most
//     PerClient attempts in flight;
//   - at most Workers attempts in all.
//
// A line holds at most its read-ahead waiting (see lane), and a client's
// lines together at most holds (2*PerClient, or Workers for a client
// alone); a claim skips full lines and gives each other destination no
// more than its line can take, so it reaches the due deliveries of every
// other destination. It claims when something may be due: a save's
// or a drained line's hint for a destination, a replay, a takeover, the
// next scheduled retry, or the poll.
//
// A rule about what may be claimed (a destination paused, a fair share)
// goes in request; a rule about what may start once claimed goes in
// startLocked.
type claimer struct {
	outbox store.Outbox
	log    *slog.Logger
	opts   Options
	leases *leases
	hard   context.Context
	pauses *pauses // paused destinations: never claimed
	rates  *rates  // destinations' maxPerSecond
	// start runs an attempt of w (in its own goroutine); the attempt gives
	// its slot back with free, and says it is over with ended.
	start func(w work)

	wake          chan struct{}
	stop, stopped chan struct{}

	mu    sync.Mutex
	lanes map[store.DestinationRef]*lane
	// windows keeps the window of a line that drained and was dropped:
	// a destination whose line empties while a claim runs (the claim
	// waited longer than the line lasted) is the one that needs it.
	windows map[store.DestinationRef]int
	// mine holds the ids of the deliveries queued or in flight here: a
	// claim that returns one again (its lease ran out while it waited or
	// ran) must not start it a second time.
	mine     map[int64]bool
	inflight int
	queued   int
	// byClient counts the attempts in flight per client.
	byClient map[string]int
	// Why the claimer was woken: work for these destinations, or anything
	// (a refill, the poll, a replay). A claim for full lines only would
	// find nothing it may take (it skips them), so saves for full lines
	// alone do not trigger one.
	hinted  map[store.DestinationRef]bool
	anyWork bool
	// wanted are the destinations hinted when the current rounds began:
	// the rounds go on while one of them may still find room, so a claim
	// reaches them past other destinations' backlogs.
	wanted map[store.DestinationRef]bool
	// due is the earliest retry an attempt has scheduled since the run
	// loop last looked (zero: none): the loop wakes for it even when it
	// comes before the poll, and the store's NextDue did not see it yet.
	due time.Time
}

// lane is one destination's claimed deliveries: at most its share in
// flight, and up to its waitCap (its window, bounded by the fair share of
// the lines) more waiting in line (under lease) for a slot.
//
// window is how far the claimer reads ahead for the destination: the line
// claims again once half of it is left waiting (see free). A claim waits
// for the writer's next commit, behind the saves: a destination that
// answers faster than that needs more claimed ahead to keep its slots
// busy. It starts at one PerDestination and doubles (up to maxWindow of
// them) when a full claim comes back to a line with free slots and less
// than a quarter of a window waiting; it halves when a claim comes back
// to half a window still waiting (the destination took nothing while the
// claim ran: it answers slowly, or hangs), so few leases sit unused. A
// line that drains and is dropped keeps its window (claimer.windows).
type lane struct {
	// dry: the last claim that could serve the line found nothing more
	// due for it. Its draining then wakes no claim (which would find
	// nothing), until a save or a replay for it, or the line drains and
	// is dropped (a record's next delivery, which waited for one of these
	// to end, is claimed then, or at the poll).
	dry    bool
	busy   int
	queue  []work
	window int
}

// maxWindow bounds a line's read-ahead, in PerDestinations.
const maxWindow = 8

// work is a claimed delivery and the owner it was claimed under: an
// attempt records itself under that owner, whatever the process's owner
// has become since (see leases).
type work struct {
	store.Claimed
	owner string
	// due is when it became due (store.Claimed.DueAt, or its claim if the
	// store does not know): its wait in line counts as due from then.
	due time.Time
}

func newClaimer(outbox store.Outbox, log *slog.Logger, opts Options, l *leases, hard context.Context) *claimer {
	return &claimer{outbox: outbox, log: log, opts: opts, leases: l, hard: hard,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{}),
		lanes: map[store.DestinationRef]*lane{}, windows: map[store.DestinationRef]int{}, mine: map[int64]bool{}, hinted: map[store.DestinationRef]bool{}, anyWork: true,
		byClient: map[string]int{}}
}

// hint records why the claimer is woken (destinations, or with none,
// anything) and wakes it. It never blocks.
func (c *claimer) hint(destinations ...store.DestinationRef) {
	c.mu.Lock()
	if len(destinations) == 0 {
		c.anyWork = true
	}
	for _, k := range destinations {
		c.hinted[k] = true
		if l, ok := c.lanes[k]; ok {
			l.dry = false
		}
	}
	c.mu.Unlock()
	c.wake1()
}

func (c *claimer) wake1() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *claimer) run() {
	defer close(c.stopped)
	timer := time.NewTimer(0)
	defer timer.Stop()
	next := c.opts.Now() // when the timer fires
	arm := func(d time.Duration) { timer.Reset(d); next = c.opts.Now().Add(d) }
	for {
		fired := false
		select {
		case <-c.stop:
			return
		case <-c.wake:
		case <-timer.C:
			fired = true
			c.mu.Lock()
			c.anyWork = true
			c.mu.Unlock()
		}
		if due := c.takeDue(); !fired && !due.IsZero() && due.Before(next) {
			arm(max(due.Sub(c.opts.Now()), 0))
		}
		if _, held := c.leases.current(); !held || !c.worthClaiming() {
			if fired {
				arm(c.opts.Poll)
			} // else the timer set for the next retry or poll still runs
			continue
		}
		more, saturated := c.safeRound()
		for more {
			more, saturated = c.safeRound()
		}
		if saturated {
			// Every worker is busy: claim again as soon as a finished
			// attempt wakes us.
			c.mu.Lock()
			c.anyWork = true
			c.mu.Unlock()
			arm(c.opts.Poll)
			continue
		}
		arm(c.sleep())
	}
}

// retryAt is told that an attempt has scheduled its delivery's retry at
// at: the run loop wakes for it, even before the poll.
func (c *claimer) retryAt(at time.Time) {
	c.mu.Lock()
	if c.due.IsZero() || at.Before(c.due) {
		c.due = at
	}
	c.mu.Unlock()
	c.wake1()
}

func (c *claimer) takeDue() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	due := c.due
	c.due = time.Time{}
	return due
}

// worthClaiming reports whether a claim may find work this process can
// take, and resets the wake-up reasons.
func (c *claimer) worthClaiming() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	worth := c.anyWork
	c.wanted = map[store.DestinationRef]bool{}
	for k := range c.hinted {
		if l, ok := c.lanes[k]; !ok || !c.full(l) {
			worth = true
			c.wanted[k] = true
		}
	}
	c.anyWork = false
	clear(c.hinted)
	return worth
}

// sleep is how long to wait for the next scheduled retry, at most Poll. A
// delivery due now that could not be claimed waits for its destination to
// free a slot, which wakes the claimer anyway.
func (c *claimer) sleep() time.Duration {
	now := c.opts.Now()
	sleep := c.opts.Poll
	if at, ok := c.rates.next(); ok {
		sleep = min(sleep, max(at.Sub(now), time.Millisecond)) // a token is due
	}
	at, ok, err := c.outbox.NextDue(c.hard, now)
	if err != nil || !ok {
		return sleep
	}
	if w := at.Sub(now); w > 0 && w < sleep {
		return w
	}
	return sleep
}

// safeRound is round, with a panic recovered and logged: the round fails
// (what it claimed falls due again when its lease ends), and the claimer
// goes on.
func (c *claimer) safeRound() (more, saturated bool) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("panic in the delivery dispatcher; the claim round failed", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			more, saturated = false, false
		}
	}()
	return c.round()
}

// claimSize rounds a claim's size above 2*step down to a multiple of
// step. The PostgreSQL store writes the size into its claim statement's
// text (so that the plan knows it, postgres/queries.go), and pgx keeps
// each text prepared on every connection it ran on: with sizes anywhere
// up to a client's 256, a 10-minute soak's RSS grew by a quarter. So
// there are at most a few sizes above 2*step (6 up to 256 with step 32), at the cost
// of claiming up to step-1 fewer than the room.
func claimSize(n, step int) int {
	if n <= 2*step {
		return n
	}
	return n - n%step
}

// request is what a claim asks the store for: up to limit due deliveries,
// none for the destinations in skip (their lines are full), nor for those
// paused or waiting for their rate's next token, and to each destination
// no more than its line can take (rooms; other for a destination without
// a line). Claim-time rules go here.
func (c *claimer) request(owner string, limit int, skip []store.DestinationRef, rooms []store.DestinationRoom, other int) store.ClaimRequest {
	now := c.opts.Now()
	skip = append(append(skip, c.pauses.list()...), c.rates.skip(now)...)
	return store.ClaimRequest{Owner: owner, Now: now, LeaseUntil: now.Add(c.opts.Lease),
		Limit: limit, Skip: skip, Unordered: c.opts.Unordered(), Room: rooms, OtherRoom: other}
}

// round claims deliveries for the destinations with room in line and
// starts what their slots allow. It reports whether another round may find
// more, and whether the line is full (every destination with work is at
// its limit, or the dispatcher as a whole is).
func (c *claimer) round() (more, saturated bool) {
	owner, held := c.leases.current()
	if !held {
		return false, false
	}
	c.mu.Lock()
	trimmed := c.trimLocked()
	room := c.opts.Workers*2 - c.inflight - c.queued
	var skip []store.DestinationRef
	load := c.clientLoad()
	holds := c.holds(load)
	// At most the room of one line's read-ahead (see lane): what a line
	// refilled at half its read-ahead (see free) takes then rarely
	// overflows.
	limit := c.opts.PerDestination
	var lines []store.DestinationRoom // the lines with room, and how much
	for key, l := range c.lanes {
		if c.full(l) || load[key.ClientID] >= holds(key.ClientID) {
			skip = append(skip, key)
		} else {
			// No more than the line, and its client's lines, can take:
			// what does not fit is released, a write for nothing, and
			// takes the claim's room from the lines after it.
			lineRoom := min(c.waitCap(l)-len(l.queue), holds(key.ClientID)-load[key.ClientID])
			limit = max(limit, lineRoom)
			lines = append(lines, store.DestinationRoom{DestinationRef: key, N: lineRoom})
		}
	}
	rooms, other := c.newLineRooms(slices.Clip(lines), load, holds)
	c.mu.Unlock()
	for o, ids := range trimmed {
		if err := c.outbox.Release(c.hard, o, ids); err != nil {
			c.log.Error("release deliveries", "err", err)
		}
	}
	for client, n := range load {
		if n >= holds(client) {
			skip = append(skip, c.opts.ClientDestinations(client)...)
		}
	}
	if room <= 0 {
		return false, true
	}
	limit = claimSize(min(room, limit), c.opts.PerDestination)
	req := c.request(owner, limit, skip, rooms, other)
	claimed, err := c.outbox.Claim(c.hard, req)
	if err != nil {
		c.log.Error("claim deliveries", "err", err)
		return false, false
	}
	got := map[store.DestinationRef]int{}
	for _, cl := range claimed {
		got[cl.Ref()]++
	}
	// A destination's claim came back whole (more may be due for it) when
	// the claim got all it asked for, or the destination all its room.
	whole := func(ref store.DestinationRef) bool { return len(claimed) == limit || got[ref] >= req.RoomFor(ref) }
	c.dried(lines, whole)
	overflow, roomLeft, ok := c.queue(owner, claimed, whole, c.opts.Now())
	if !ok {
		return false, false
	}
	if len(overflow) > 0 {
		if err := c.outbox.Release(c.hard, owner, overflow); err != nil {
			c.log.Error("release deliveries", "err", err)
		}
	}
	// Claim again at once only if a line this claim served has room left,
	// or a destination this claim was woken for has not been reached: when
	// the claim filled every line it served, another would have to skip
	// them (a step per destination with pending deliveries in the store,
	// for little). Work for other destinations
	// is claimed when a line drains (the refill claims in due order across
	// destinations), on their saves' wake-ups, or on the poll.
	return len(claimed) == limit && len(overflow) < len(claimed) && (roomLeft || c.wantsMore()), false
}

// newLineRooms adds to rooms what a destination without a line may take:
// the waitCap its line would have (its window, kept since its last line
// or PerDestination, and at most Workers/(n+1) with n lines now), and no
// more than its client may still hold (holds less its load, as for the
// lines): what does not fit is released, a write for nothing. other
// is that of a destination with no window kept, of a client with nothing
// here; the destinations of a client with less room left than that are
// listed with their client's room. Clients with no room left are skipped
// whole (see round). c.mu is held.
func (c *claimer) newLineRooms(rooms []store.DestinationRoom, load map[string]int, holds func(string) int) ([]store.DestinationRoom, int) {
	fresh := max(1, c.opts.Workers/(len(c.lanes)+1))
	budget := func(client string) int { return holds(client) - load[client] }
	for key, w := range c.windows {
		if _, ok := c.lanes[key]; !ok {
			rooms = append(rooms, store.DestinationRoom{DestinationRef: key, N: max(1, min(w, fresh, budget(key.ClientID)))})
		}
	}
	other := max(1, min(c.opts.PerDestination, fresh, 2*c.opts.PerClient))
	for client := range load {
		if b := budget(client); b > 0 && b < other {
			for _, key := range c.opts.ClientDestinations(client) {
				_, lined := c.lanes[key]
				if _, kept := c.windows[key]; !lined && !kept {
					rooms = append(rooms, store.DestinationRoom{DestinationRef: key, N: b})
				}
			}
		}
	}
	return rooms, other
}

// wantsMore reports whether a destination the rounds were woken for has
// not been reached yet (nothing of it claimed here). Once it has a line,
// it is reached: its line refills as it drains, and more rounds would
// only churn the other lines (claim and release what does not fit).
func (c *claimer) wantsMore() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.wanted {
		if _, ok := c.lanes[k]; ok {
			delete(c.wanted, k)
		}
	}
	return len(c.wanted) > 0
}

// clientLoad is each client's deliveries here, in flight and waiting.
// c.mu is held.
func (c *claimer) clientLoad() map[string]int {
	load := map[string]int{}
	for key, l := range c.lanes {
		load[key.ClientID] += l.busy + len(l.queue)
	}
	return load
}

// holds returns how many deliveries a client's lines may hold here, in
// flight and waiting, given each client's load: 2*PerClient while
// another client holds some, and Workers (at least 2*PerClient) for the
// one client holding any, or any client when none does. A client's
// lines read ahead of its attempts to hide how long a claim takes (it
// waits for a commit behind the saves); alone, at 2*PerClient (96
// waiting beside 32 in flight), one destination's deliveries on
// PostgreSQL fell behind flat-out saves (0.89-0.95 of them in
// loadtest/e2e), and kept up with room for Workers (0.99-1.01). Half of
// the claimer's room (2*Workers) stays free for the next client's first
// claims, and once other clients take all but a client's share of that,
// trimLocked releases what the first holds past 2*PerClient.
func (c *claimer) holds(load map[string]int) func(client string) int {
	shared, alone := 2*c.opts.PerClient, max(2*c.opts.PerClient, c.opts.Workers)
	holding, only := 0, ""
	for client, n := range load {
		if n > 0 {
			holding, only = holding+1, client
		}
	}
	return func(client string) int {
		if holding == 0 || holding == 1 && client == only {
			return alone
		}
		return shared
	}
}

// queue puts what a claim under owner returned in line and starts what
// may start. It returns what did not fit (its line, or its client's, is
// full: to release), whether a line it served has room left, and false
// when owner is no longer the one held: the hold broke while the claim
// ran, and the claim's leases go to whoever takes them over. whole: the
// claim came back whole for a destination (see round).
func (c *claimer) queue(owner string, claimed []store.Claimed, whole func(store.DestinationRef) bool, now time.Time) (overflow []int64, roomLeft, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, held := c.leases.current(); !held || cur != owner {
		return nil, false, false
	}
	c.adapt(claimed, whole)
	load := c.clientLoad()
	holds := c.holds(load)
	for _, cl := range claimed {
		if c.mine[cl.ID] {
			continue // already here: its lease ran out while it waited or ran
		}
		l := c.lane(cl.Ref())
		if c.full(l) || load[cl.Key.ClientID] >= holds(cl.Key.ClientID) || c.pauses.paused(cl.Ref()) || !c.rates.take(cl.Ref(), now) {
			// Its line filled up within this claim, its destination was
			// paused meanwhile, or it has no token: it waits unleased.
			overflow = append(overflow, cl.ID)
			continue
		}
		l.queue = append(l.queue, work{cl, owner, dueSince(cl, now)})
		load[cl.Key.ClientID]++
		c.mine[cl.ID] = true
		c.queued++
	}
	c.startLocked()
	for _, cl := range claimed {
		if l, ok := c.lanes[cl.Ref()]; ok {
			roomLeft = roomLeft || !c.full(l) && load[cl.Key.ClientID] < holds(cl.Key.ClientID)
		}
	}
	return overflow, roomLeft, true
}

// full reports whether l holds its read-ahead waiting in line (beside
// what it has in flight): claims skip it and release what they got for
// it.
func (c *claimer) full(l *lane) bool { return len(l.queue) >= c.waitCap(l) }

// waitCap is how many of l's deliveries may wait in line: its window (see
// lane), but no more than Workers/n with n destinations holding claimed
// work: the lines together hold at most Workers waiting, and with at most
// Workers/2+n in flight (see mayStart) there is always room to claim for
// a destination that comes next. c.mu is held.
func (c *claimer) waitCap(l *lane) int {
	return max(1, min(c.window(l), c.opts.Workers/max(1, len(c.lanes))))
}

// trimLocked takes out of the lines what waits past its line's waitCap
// (which shrinks as more destinations have work), and out of a client's
// lines what they hold past holds (which shrinks once another client
// holds work) when the room is short, and returns their ids by owner, to
// release: a line or a client that filled up while it was one of few
// must not keep the room others need. c.mu is held.
func (c *claimer) trimLocked() map[string][]int64 {
	out := map[string][]int64{}
	for _, l := range c.lanes {
		for len(l.queue) > c.waitCap(l) {
			c.dropLast(l, out)
		}
	}
	// A client that held work alone may hold more than it may beside
	// others (holds). Once others hold some and the claimer's room left
	// is less than one client's share (2*PerClient), what waits past its
	// share goes back, from the lines' tails. A client that holds its
	// whole Workers alone leaves exactly half the room: until others take
	// a client's share of it (a client with a delivery now and then does
	// not), it keeps its read-ahead, or each of their deliveries would
	// release and claim again the first's.
	if c.opts.Workers*2-c.inflight-c.queued >= 2*c.opts.PerClient {
		return out
	}
	load := c.clientLoad()
	holds := c.holds(load)
	for key, l := range c.lanes {
		for len(l.queue) > 0 && load[key.ClientID] > holds(key.ClientID) {
			c.dropLast(l, out)
			load[key.ClientID]--
		}
	}
	return out
}

// dropLast takes the last delivery waiting in l out of the lines, adding
// its id to out by owner. c.mu is held.
func (c *claimer) dropLast(l *lane, out map[string][]int64) {
	w := l.queue[len(l.queue)-1]
	l.queue = l.queue[:len(l.queue)-1]
	c.queued--
	delete(c.mine, w.ID)
	out[w.owner] = append(out[w.owner], w.ID)
}

// share is how many attempts one destination may have in flight now:
// (Workers/2)/(n+1) with n destinations holding claimed work, at least 1
// and at most PerDestination. c.mu is held.
func (c *claimer) share() int {
	return max(1, min(c.opts.PerDestination, c.growth()/(len(c.lanes)+1)))
}

// growth is how many workers a destination's second and later attempts
// may use in all: half of them; the rest wait for first attempts.
func (c *claimer) growth() int { return max(1, c.opts.Workers/2) }

// mayStart reports whether lane l of client may start an attempt now.
// c.mu is held.
func (c *claimer) mayStart(client string, l *lane, share int) bool {
	return len(l.queue) > 0 && c.inflight < c.opts.Workers && c.byClient[client] < c.opts.PerClient &&
		(l.busy == 0 || (l.busy < share && c.inflight < c.growth()))
}

// dried marks the lines a claim could serve dry when its claim did not
// come back whole for them (nothing more is due for them), or not dry.
func (c *claimer) dried(lines []store.DestinationRoom, whole func(store.DestinationRef) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range lines {
		if l, ok := c.lanes[r.DestinationRef]; ok {
			l.dry = !whole(r.DestinationRef)
		}
	}
}

// adapt resizes the window of each line a claim served, as it finds them
// when the claim comes back (see lane). whole: the claim came back whole
// for a destination (more may be due). c.mu is held.
func (c *claimer) adapt(claimed []store.Claimed, whole func(store.DestinationRef) bool) {
	seen := map[*lane]bool{}
	for _, cl := range claimed {
		l := c.lane(cl.Ref())
		if seen[l] {
			continue
		}
		seen[l] = true
		switch w := c.window(l); {
		case whole(cl.Ref()) && l.busy < c.share() && 4*len(l.queue) < w:
			l.window = min(2*w, maxWindow*c.opts.PerDestination)
		case 2*len(l.queue) >= w:
			l.window = max(w/2, c.opts.PerDestination)
		}
	}
}

// window is l's read-ahead (see lane).
func (c *claimer) window(l *lane) int {
	if l.window == 0 {
		return c.opts.PerDestination
	}
	return l.window
}

func (c *claimer) lane(key store.DestinationRef) *lane {
	l, ok := c.lanes[key]
	if !ok {
		l = &lane{window: c.windows[key]}
		c.lanes[key] = l
	}
	return l
}

// startLocked starts the waiting deliveries that have a slot, one
// destination's line at a time, within its share and its client's cap.
// c.mu is held.
func (c *claimer) startLocked() {
	share := c.share()
	for key, l := range c.lanes {
		for c.mayStart(key.ClientID, l, share) {
			w := l.queue[0]
			l.queue = l.queue[1:]
			l.busy++
			c.queued--
			c.inflight++
			c.byClient[key.ClientID]++
			c.start(w)
		}
		if l.busy == 0 && len(l.queue) == 0 {
			c.drop(key, l)
		}
	}
}

// oldestQueued is how long the delivery waiting in line, claimed but not
// started, that became due first has been due (0: none waits). A line
// holds its deliveries in claim order, which need not be due order (one
// released and claimed again keeps its due time), so each is looked at.
func (c *claimer) oldestQueued(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var oldest time.Duration
	for _, l := range c.lanes {
		for _, w := range l.queue {
			oldest = max(oldest, now.Sub(w.due))
		}
	}
	return oldest
}

// dueSince is when cl became due: as the store kept it, or at the claim
// (now) if it did not.
func dueSince(cl store.Claimed, now time.Time) time.Time {
	if cl.DueAt.IsZero() || cl.DueAt.After(now) {
		return now
	}
	return cl.DueAt
}

// free gives back a slot of destination's line and starts what waits.
func (c *claimer) free(destination store.DestinationRef) {
	c.mu.Lock()
	l := c.lane(destination)
	l.busy--
	c.inflight--
	if c.byClient[destination.ClientID]--; c.byClient[destination.ClientID] <= 0 {
		delete(c.byClient, destination.ClientID)
	}
	// Claim again once half the line's read-ahead is left waiting, so
	// that the next claim (which waits for a commit) comes back before
	// the line runs dry, and claims come in batches rather than one per
	// attempt; not while the last claim found nothing more for it.
	refill := 2*len(l.queue) <= c.waitCap(l) && !l.dry
	select {
	case <-c.stop: // stopping: the line is released, start nothing
	default:
		c.startLocked()
	}
	if refill {
		// A hint, not anyWork: if a claim has refilled the line by the
		// time the claimer wakes, there is nothing to claim for it.
		c.hinted[destination] = true
	}
	c.mu.Unlock()
	if refill {
		c.wake1()
	}
}

// ended is told that a delivery to ref is over (delivered or failed for
// good): a record's later delivery to ref may have waited for it
// (per-record order) and is due now. A busy line claims again as it
// drains anyway; an idle one is woken.
func (c *claimer) ended(ref store.DestinationRef) {
	c.mu.Lock()
	l, ok := c.lanes[ref]
	// A dry line stays dry: were each delivery's end to wake a claim, a
	// drained backlog's last attempts would each claim nothing. A line
	// that has drained is dropped (free), so its next claim is asked.
	idle := !ok || l.busy == 0 && len(l.queue) == 0
	c.hinted[ref] = true
	c.mu.Unlock()
	if idle {
		c.wake1()
	}
}

// drop removes l, idle, from the lines, keeping its window. c.mu is held.
func (c *claimer) drop(key store.DestinationRef, l *lane) {
	if l.window > c.opts.PerDestination {
		c.windows[key] = l.window
	} else {
		delete(c.windows, key)
	}
	delete(c.lanes, key)
}

// forget is told that the attempt of delivery id is over: a later claim
// may return it again.
func (c *claimer) forget(id int64) {
	c.mu.Lock()
	delete(c.mine, id)
	c.mu.Unlock()
}

// dropQueued takes the deliveries waiting in line out of their lines and
// returns their ids by the owner they were claimed under.
func (c *claimer) dropQueued() map[string][]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]int64{}
	for key, l := range c.lanes {
		for _, w := range l.queue {
			out[w.owner] = append(out[w.owner], w.ID)
			delete(c.mine, w.ID)
		}
		c.queued -= len(l.queue)
		l.queue = nil
		if l.busy == 0 {
			c.drop(key, l)
		}
	}
	return out
}
