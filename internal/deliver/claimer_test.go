package deliver

import (
	"strconv"
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
// others hold work and the claimer's room left is less than a client's
// share, a round's trim releases what the first holds past 2*PerClient,
// from the tails of its lines, never what is in flight.
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

	for _, tc := range []struct {
		name  string
		lines []testLine
		// released: how many of client a's waiting deliveries a trim
		// gives back
		released int
	}{
		{"alone, 192 held", []testLine{{"a", 16, 80}, {"a", 16, 80}}, 0},
		{"all 256 held, beside another client's one delivery in flight", []testLine{
			{"a", 16, 48}, {"a", 16, 48}, {"a", 16, 48}, {"a", 16, 48}, {"b", 1, 0}}, 0},
		{"164 held, beside three clients holding 82 each: 102 of the room left", []testLine{
			{"a", 32, 50}, {"a", 32, 50}, {"b", 32, 50}, {"c", 32, 50}, {"d", 32, 50}}, 164 - 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &claimer{opts: opts, lanes: map[store.DestinationRef]*lane{}, mine: map[int64]bool{}}
			for i, tl := range tc.lines {
				l := &lane{busy: tl.busy, window: 256}
				for j := range tl.waiting {
					l.queue = append(l.queue, work{Claimed: store.Claimed{Delivery: store.Delivery{ID: int64(1000*i + j)}}, owner: "me"})
				}
				c.lanes[store.DestinationRef{ClientID: tl.client, ID: strconv.Itoa(i)}] = l
				c.inflight += tl.busy
				c.queued += tl.waiting
			}
			before := c.clientLoad()
			out := c.trimLocked()
			after := c.clientLoad()
			if got := before["a"] - after["a"]; got != tc.released || len(out["me"]) != got {
				t.Errorf("released %d of a's (%d in all), want %d", got, len(out["me"]), tc.released)
			}
			for client, n := range before {
				if client != "a" && after[client] != n {
					t.Errorf("client %s went from %d to %d", client, n, after[client])
				}
			}
			for i, tl := range tc.lines {
				l := c.lanes[store.DestinationRef{ClientID: tl.client, ID: strconv.Itoa(i)}]
				if l.busy != tl.busy {
					t.Errorf("line %d: %d in flight, want %d: a trim never takes what is in flight", i, l.busy, tl.busy)
				}
				for j, w := range l.queue {
					if w.ID != int64(1000*i+j) {
						t.Errorf("line %d kept %d at %d: a trim takes from the tail", i, w.ID, j)
					}
				}
			}
			if c.queued != sumWaiting(c) {
				t.Errorf("queued %d, want %d", c.queued, sumWaiting(c))
			}
		})
	}
}

// testLine is one line of a client's: in flight, waiting.
type testLine struct {
	client        string
	busy, waiting int
}

func sumWaiting(c *claimer) int {
	n := 0
	for _, l := range c.lanes {
		n += len(l.queue)
	}
	return n
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
