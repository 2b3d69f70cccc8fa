package deliver

import (
	"testing"

	"github.com/pads-dev/pads/internal/store"
)

// TestNewLineRoomsKeepToTheClientsBudget: a claim gives a destination
// without a line no more than its client may still hold (2*PerClient less
// what the client has here, beside another client holding work), as it
// does the lines: the rest would be claimed only for queue to release it.
func TestNewLineRoomsKeepToTheClientsBudget(t *testing.T) {
	ref := func(client, dest string) store.DestinationRef {
		return store.DestinationRef{ClientID: client, ID: dest}
	}
	busy := ref("busy", "a") // has a line: 30 in flight, 30 waiting, of 64
	kept := ref("busy", "b") // no line, a window of 32 kept
	fresh := ref("busy", "c")
	idle := ref("idle", "d")
	third := ref("third", "e") // another client holding work: busy is not alone
	c := &claimer{
		opts: Options{Workers: 256, PerDestination: 32, PerClient: 32,
			ClientDestinations: func(client string) []store.DestinationRef {
				switch client {
				case "busy":
					return []store.DestinationRef{busy, kept, fresh}
				case "third":
					return []store.DestinationRef{third}
				}
				return []store.DestinationRef{idle}
			}}.withDefaults(),
		lanes:   map[store.DestinationRef]*lane{busy: {busy: 30, queue: make([]work, 30), window: 32}, third: {busy: 1}},
		windows: map[store.DestinationRef]int{kept: 32, busy: 32},
	}
	load := c.clientLoad()
	rooms, other := c.newLineRooms(nil, load, c.holds(load))
	req := store.ClaimRequest{Limit: 256, Room: rooms, OtherRoom: other}
	for _, tc := range []struct {
		name string
		ref  store.DestinationRef
		want int
	}{
		{"window kept, client nearly full", kept, 4},
		{"no window, client nearly full", fresh, 4},
		{"no window, client with nothing here", idle, 32},
	} {
		if got := req.RoomFor(tc.ref); got != tc.want {
			t.Errorf("%s: room %d, want %d", tc.name, got, tc.want)
		}
	}

	// A client with nothing here may hold 2*PerClient: less than
	// PerDestination when PerClient is small.
	c.opts.PerClient = 8
	rooms, other = c.newLineRooms(nil, load, c.holds(load))
	req = store.ClaimRequest{Limit: 256, Room: rooms, OtherRoom: other}
	if got := req.RoomFor(idle); got != 16 {
		t.Errorf("no window, client with nothing here, PerClient 8: room %d, want 16", got)
	}
}

// TestAClientAloneReadsFurtherAhead: a client's lines may hold Workers
// while no other client holds work here, 2*PerClient beside one; and once
// another client holds work and the claimer's room is short of half, a
// round's trim releases what the first holds past 2*PerClient, from the
// tails of its lines, never what is in flight.
func TestAClientAloneReadsFurtherAhead(t *testing.T) {
	opts := Options{Workers: 256, PerDestination: 32, PerClient: 64}.withDefaults()
	c := &claimer{opts: opts}
	for _, tc := range []struct {
		name   string
		load   map[string]int
		client string
		want   int
	}{
		{"nobody holds work", map[string]int{}, "a", 256},
		{"the one client holding work", map[string]int{"a": 200}, "a", 256},
		{"a client beside the one holding work", map[string]int{"a": 200}, "b", 128},
		{"one of two holding work", map[string]int{"a": 200, "b": 1}, "a", 128},
		{"a line left empty is no work", map[string]int{"a": 200, "b": 0}, "a", 256},
	} {
		if got := c.holds(tc.load)(tc.client); got != tc.want {
			t.Errorf("%s: %s holds %d, want %d", tc.name, tc.client, got, tc.want)
		}
	}
	if got := (&claimer{opts: Options{Workers: 8, PerDestination: 2, PerClient: 8}.withDefaults()}).holds(nil)("a"); got != 16 {
		t.Errorf("alone with Workers below 2*PerClient: holds %d, want 16", got)
	}

	// Client a holds 192 alone, in two lines of 16 in flight and 80
	// waiting (within each line's read-ahead, whatever the number of
	// lines below).
	x1 := store.DestinationRef{ClientID: "a", ID: "x1"}
	x2 := store.DestinationRef{ClientID: "a", ID: "x2"}
	b := store.DestinationRef{ClientID: "b", ID: "y"}
	waiting := func(from int) []work {
		q := make([]work, 80)
		for i := range q {
			q[i] = work{Claimed: store.Claimed{Delivery: store.Delivery{ID: int64(from + i)}}, owner: "me"}
		}
		return q
	}
	c.lanes = map[store.DestinationRef]*lane{x1: {busy: 16, queue: waiting(0), window: 256}, x2: {busy: 16, queue: waiting(100), window: 256}}
	c.inflight, c.queued = 32, 160
	c.mine = map[int64]bool{}
	if out := c.trimLocked(); len(out) != 0 {
		t.Fatalf("alone, 192 held of 256: released %d", len(out["me"]))
	}
	// Another client with a little work: the room (512 less 193 held)
	// is not short, nothing goes back.
	c.lanes[b] = &lane{busy: 1, window: 256}
	c.inflight++
	if out := c.trimLocked(); len(out) != 0 {
		t.Fatalf("beside a client with one delivery in flight: released %d", len(out["me"]))
	}
	// It reads ahead 80: the room (239) is short of half.
	c.lanes[b].queue = make([]work, 80)
	c.queued += 80
	out := c.trimLocked()
	if got, want := len(out["me"]), 192-128; got != want {
		t.Errorf("beside another client: released %d, want %d", got, want)
	}
	l1, l2 := c.lanes[x1], c.lanes[x2]
	if l1.busy+l2.busy != 32 || len(l1.queue)+len(l2.queue) != 96 || c.queued != 176 {
		t.Errorf("beside another client: a holds %d in flight and %d waiting (queued %d), want 32, 96 (176)",
			l1.busy+l2.busy, len(l1.queue)+len(l2.queue), c.queued)
	}
	for _, id := range out["me"] {
		if id%100 < 80-64 {
			t.Errorf("released %d, not from the tail of its line", id)
		}
	}
}

// TestClaimSizesAreFew: a claim asks for its room exactly up to twice the
// step, and above that for a multiple of the step, never more than its
// room: a handful of statement texts for a store that writes the size
// into its statement.
func TestClaimSizesAreFew(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{1, 1}, {31, 31}, {64, 64}, {65, 64}, {95, 64}, {96, 96}, {200, 192}, {256, 256}, {511, 480}} {
		if got := claimSize(tc.n, 32); got != tc.want {
			t.Errorf("claimSize(%d, 32) = %d, want %d", tc.n, got, tc.want)
		}
	}
	sizes := map[int]bool{}
	for n := 65; n <= 256; n++ {
		sizes[claimSize(n, 32)] = true
	}
	if len(sizes) != 7 {
		t.Errorf("claims of 65 to 256 take %d sizes, want 7 (64, 96, ..., 256)", len(sizes))
	}
}
