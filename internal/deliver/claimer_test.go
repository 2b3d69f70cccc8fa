package deliver

import (
	"testing"

	"github.com/pads-dev/pads/internal/store"
)

// TestNewLineRoomsKeepToTheClientsBudget: a claim gives a destination
// without a line no more than its client may still hold (2*PerClient less
// what the client has here), as it does the lines: the rest would be
// claimed only for queue to release it.
func TestNewLineRoomsKeepToTheClientsBudget(t *testing.T) {
	ref := func(client, dest string) store.DestinationRef {
		return store.DestinationRef{ClientID: client, ID: dest}
	}
	busy := ref("busy", "a") // has a line: 30 in flight, 30 waiting, of 64
	kept := ref("busy", "b") // no line, a window of 32 kept
	fresh := ref("busy", "c")
	idle := ref("idle", "d")
	c := &claimer{
		opts: Options{Workers: 256, PerDestination: 32, PerClient: 32,
			ClientDestinations: func(client string) []store.DestinationRef {
				if client == "busy" {
					return []store.DestinationRef{busy, kept, fresh}
				}
				return []store.DestinationRef{idle}
			}}.withDefaults(),
		lanes:   map[store.DestinationRef]*lane{busy: {busy: 30, queue: make([]work, 30), window: 32}},
		windows: map[store.DestinationRef]int{kept: 32, busy: 32},
	}
	rooms, other := c.newLineRooms(nil, c.clientLoad())
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
	rooms, other = c.newLineRooms(nil, c.clientLoad())
	req = store.ClaimRequest{Limit: 256, Room: rooms, OtherRoom: other}
	if got := req.RoomFor(idle); got != 16 {
		t.Errorf("no window, client with nothing here, PerClient 8: room %d, want 16", got)
	}
}
