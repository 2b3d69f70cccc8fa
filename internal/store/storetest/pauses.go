package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

var pauseTests = []test{
	{"PausesAreDurableKeepTheirFirstReasonAndResume", testPauses},
}

// testPauses: a pause is read back by a store opened afterwards (another
// process, a restart); pausing a paused destination keeps the first
// pause; resuming removes it, once.
func testPauses(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	if got, err := h.PausedDestinations(ctx); err != nil || len(got) != 0 {
		t.Fatalf("PausedDestinations of a new database = %v, %v; want none", got, err)
	}
	at := time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC)
	hook := store.DestinationRef{ClientID: "acme", ID: "d1"}
	for i, p := range []struct {
		pause store.Pause
		want  bool
	}{
		{store.Pause{DestinationRef: hook, At: at, Reason: "maintenance until noon", By: "cli:ops"}, true},
		{store.Pause{DestinationRef: hook, At: at.Add(time.Minute), Reason: "410 Gone", By: "destination"}, false},
		{store.Pause{DestinationRef: store.DestinationRef{ClientID: "acme", ID: "d2"}, At: at, By: "cli:ops"}, true},
	} {
		if changed, err := h.PauseDestination(ctx, p.pause); err != nil || changed != p.want {
			t.Fatalf("pause %d: changed %v, %v; want %v", i, changed, err, p.want)
		}
	}
	h.Close()
	again := open(t, o)
	got, err := again.PausedDestinations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := store.Pause{DestinationRef: hook, At: at, Reason: "maintenance until noon", By: "cli:ops"}
	if len(got) != 2 || got[0] != want || got[1].ID != "d2" {
		t.Fatalf("after reopening: %+v; want d1's first pause, then d2", got)
	}
	for i, want := range []bool{true, false} {
		if changed, err := again.ResumeDestination(ctx, hook); err != nil || changed != want {
			t.Fatalf("resume %d: %v, %v; want %v", i, changed, err, want)
		}
	}
	if got, _ := again.PausedDestinations(ctx); len(got) != 1 || got[0].ID != "d2" {
		t.Fatalf("after resuming d1: %+v", got)
	}
}
