package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// testHeld: Held answers, for many ids in one call, those the owner still
// leases and that are still pending: not another owner's, not one
// finished, not an id that does not exist.
func testHeld(t *testing.T, o Opener) {
	s := open(t, o)
	enqueue(t, s, "a@example.com")
	enqueue(t, s, "b@example.com")
	now := time.Now().Add(time.Second)
	mine := claim(t, s, "p1", now, "d2")   // two, for d1
	theirs := claim(t, s, "p2", now, "d1") // two, for d2
	if len(mine) != 2 || len(theirs) != 2 {
		t.Fatalf("claimed %d and %d, want 2 and 2", len(mine), len(theirs))
	}
	finish(t, s, mine[1], "p1", store.Delivered, time.Time{})
	ids := []int64{mine[0].ID, mine[1].ID, theirs[0].ID, 1 << 40}
	got, err := s.Held(context.Background(), "p1", ids)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int64{mine[0].ID}) {
		t.Fatalf("Held(p1, %v) = %v, want only %d (p1's, pending)", ids, got, mine[0].ID)
	}
	if got, err := s.Held(context.Background(), "p1", nil); err != nil || len(got) != 0 {
		t.Fatalf("Held of no ids = %v, %v", got, err)
	}
}
