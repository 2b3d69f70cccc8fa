package storetest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var claimSkipTests = []test{
	{"AClaimThatSkipsTakesTheFirstDueOfTheOthers", testClaimSkipping},
	{"ConcurrentClaimersThatSkipNeverShareADelivery", testConcurrentSkippingClaims},
	{"ADeliveryCountsAsDueFromWhenItBecameDue", testDueKept},
}

// skipClients route the saves of the skipping tests: two clients, five
// destinations.
var skipClients = map[string]Client{
	"acme":    {Full: true, Destinations: []string{"d1", "d2", "d3"}},
	"initech": {Full: true, Destinations: []string{"e1", "e2"}},
}

// modelDelivery is what the skipping test knows of a delivery: enough to
// say which claim should take it.
type modelDelivery struct {
	store.Claimed
	next      time.Time
	sensitive bool
}

// testClaimSkipping gives deliveries to five destinations of two clients
// known, shuffled due times (some not due yet; each record's sensitive
// delivery behind its non-sensitive one), then checks each claim, with
// and without destinations skipped, unordered or given a room, and at
// several limits, against the rule: the first due deliveries, in (due
// time, id) order, of the destinations not skipped, each destination's up
// to its room, a record's later delivery to an ordered destination held
// while its earlier one is pending.
func testClaimSkipping(t *testing.T, o Opener) {
	h := open(t, o)
	now := time.Now().Truncate(time.Microsecond).Add(time.Hour)
	model := fillSkipModel(t, h, now)
	room := func(name string, n int) store.DestinationRoom {
		return store.DestinationRoom{DestinationRef: refs(name)[0], N: n}
	}
	cases := []struct {
		name            string
		limit           int
		skip, unordered []store.DestinationRef
		rooms           []store.DestinationRoom
		other           int
	}{
		{"nothing skipped", 7, nil, nil, nil, 0},
		{"one skipped", 7, refs("acme/d1"), nil, nil, 0},
		{"one skipped, limit 1", 1, refs("acme/d2"), nil, nil, 0},
		{"three skipped of two clients", 3, refs("acme/d1", "acme/d3", "initech/e1"), nil, nil, 0},
		{"a destination without deliveries skipped", 100, refs("acme/nowhere"), nil, nil, 0},
		{"a skipped one, an unordered one", 12, refs("acme/d2"), refs("acme/d1"), nil, 0},
		{"all but one skipped", 100, refs("acme/d1", "acme/d2", "acme/d3", "initech/e1"), nil, nil, 0},
		{"all skipped", 100, refs("acme/d1", "acme/d2", "acme/d3", "initech/e1", "initech/e2"), nil, nil, 0},
		{"rooms of their own, and the others'", 12, nil, nil, []store.DestinationRoom{room("acme/d1", 2), room("initech/e2", 1)}, 3},
		{"a room and a skip", 20, refs("acme/d2"), nil, []store.DestinationRoom{room("acme/d1", 4)}, 0},
		{"one each", 10, nil, nil, nil, 1},
		{"rooms, a skip, an unordered one", 9, refs("initech/e1"), refs("acme/d1"), []store.DestinationRoom{room("acme/d1", 5)}, 2},
	}
	for _, c := range cases {
		req := store.ClaimRequest{Owner: "p", Now: now, LeaseUntil: now.Add(time.Minute),
			Limit: c.limit, Skip: c.skip, Unordered: c.unordered, Room: c.rooms, OtherRoom: c.other}
		got, err := h.Claim(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := expectClaim(model, &req)
		if g, w := claimedIDs(got), want; !slices.Equal(g, w) {
			t.Errorf("%s: claimed %v, want %v", c.name, g, w)
		}
		// Put them back as they were: pending, unleased, due as before.
		for _, cl := range got {
			finish(t, h, cl, "p", store.Pending, model[cl.ID].next)
		}
	}
}

// fillSkipModel saves 40 records, 20 of each client, each with a delivery
// to each of its client's destinations (100) and, for every fourth record
// (of acme), a sensitive one after it (30), then schedules every delivery
// at a shuffled time: most due before now, some after.
func fillSkipModel(t *testing.T, h *harness, now time.Time) map[int64]*modelDelivery {
	t.Helper()
	saves := SavesFor(h.Store, skipClients)
	for i := range 40 {
		client := []string{"acme", "initech"}[i%2]
		res, err := saves.Save(context.Background(), client, req(client, "", fmt.Sprintf("p%d@example.com", i), record.Fields{FormCompleted: new(true)}))
		if err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			if _, err := saves.Save(context.Background(), client, req(client, res.PatientUUID, "", record.Fields{AssessmentCompleted: new(true)})); err != nil {
				t.Fatal(err)
			}
		}
	}
	unordered := refs("acme/d1", "acme/d2", "acme/d3", "initech/e1", "initech/e2")
	got, err := h.Claim(context.Background(), store.ClaimRequest{Owner: "p", Now: now, LeaseUntil: now.Add(time.Minute), Limit: 1000, Unordered: unordered})
	if err != nil || len(got) != 130 {
		t.Fatalf("claimed %d of 130: %v", len(got), err)
	}
	rng := rand.New(rand.NewPCG(27, 1))
	order := rng.Perm(len(got))
	model := map[int64]*modelDelivery{}
	for i, cl := range got {
		// Some share a due time, so that the id decides; a tenth are not due.
		next := now.Add(time.Duration(order[i]/2-58) * time.Second)
		model[cl.ID] = &modelDelivery{Claimed: cl, next: next, sensitive: cl.DataType == record.Sensitive}
		finish(t, h, cl, "p", store.Pending, next)
	}
	return model
}

// refs names destinations written "client/id".
func refs(names ...string) []store.DestinationRef {
	var out []store.DestinationRef
	for _, n := range names {
		client, id, _ := strings.Cut(n, "/")
		out = append(out, store.DestinationRef{ClientID: client, ID: id})
	}
	return out
}

// expectClaim is what claim r should take of model: in (due time, id)
// order, the first r.Limit of the destinations not skipped, each
// destination's up to its room.
func expectClaim(model map[int64]*modelDelivery, r *store.ClaimRequest) []int64 {
	var due []*modelDelivery
	for _, d := range model {
		if d.next.After(r.Now) || slices.Contains(r.Skip, d.Ref()) {
			continue
		}
		// Every non-sensitive delivery stays pending: a sensitive one
		// waits for its record's to an ordered destination.
		if d.sensitive && !slices.Contains(r.Unordered, d.Ref()) {
			continue
		}
		due = append(due, d)
	}
	slices.SortFunc(due, func(a, b *modelDelivery) int {
		return cmp.Or(a.next.Compare(b.next), cmp.Compare(a.ID, b.ID))
	})
	var ids []int64
	taken := map[store.DestinationRef]int{}
	for _, d := range due {
		if len(ids) == r.Limit {
			break
		}
		if taken[d.Ref()] < r.RoomFor(d.Ref()) {
			taken[d.Ref()]++
			ids = append(ids, d.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func claimedIDs(claimed []store.Claimed) []int64 {
	var ids []int64
	for _, c := range claimed {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	return ids
}

// testConcurrentSkippingClaims is testConcurrentClaims with a claim that
// skips a destination: no delivery goes to two claimers.
func testConcurrentSkippingClaims(t *testing.T, o Opener) {
	s := open(t, o)
	for i := range 30 { // two deliveries each
		enqueue(t, s, fmt.Sprintf("c%d@example.com", i))
	}
	now := time.Now().Add(time.Second)
	seen := map[int64]string{}
	results := make(chan []store.Claimed)
	for w := range 8 {
		go func() {
			var all []store.Claimed
			for range 20 {
				got, err := s.Claim(context.Background(), store.ClaimRequest{Owner: fmt.Sprint(w), Now: now, LeaseUntil: now.Add(time.Minute),
					Limit: 3, Skip: []store.DestinationRef{{ClientID: "acme", ID: "d2"}}})
				if err != nil {
					t.Error(err)
				}
				all = append(all, got...)
			}
			results <- all
		}()
	}
	for w := range 8 {
		for _, c := range <-results {
			if c.Destination == "d2" {
				t.Errorf("claimed %d of the skipped destination", c.ID)
			}
			if prev, dup := seen[c.ID]; dup {
				t.Errorf("delivery %d claimed twice (%s, %d)", c.ID, prev, w)
			}
			seen[c.ID] = fmt.Sprint(w)
		}
	}
	if len(seen) != 30 {
		t.Fatalf("claimed %d of d1's 30", len(seen))
	}
}

// testDueKept: a delivery claimed and then released, or whose lease ran
// out, counts in OldestDue from when it became due, not from its claim
// nor from its creation; Claimed.DueAt says when that was, through a
// second claim; a retry counts from the retry's time.
func testDueKept(t *testing.T, o Opener) {
	s := open(t, o)
	ctx := context.Background()
	enqueue(t, s, "a@example.com")
	now := time.Now().Add(time.Second)
	var first store.Claimed
	for _, c := range claim(t, s, "p", now) {
		if c.Destination == "d1" {
			first = c
		} else {
			finish(t, s, c, "p", store.Delivered, time.Time{}) // d2's is out of the way
		}
	}
	due := now.Add(-10 * time.Minute)
	finish(t, s, first, "p", store.Pending, due) // a retry that fell due ten minutes ago
	stats := func(when time.Time) time.Duration {
		t.Helper()
		st, err := s.OutboxStats(ctx, when)
		if err != nil {
			t.Fatal(err)
		}
		return st.OldestDue
	}
	steps := []struct {
		name  string
		at    time.Time
		claim bool // claim it at at (under a lease of a minute; due before), or release it
		due   time.Time
	}{
		{"claimed", now.Add(5 * time.Minute), true, due},
		{"released", now.Add(5 * time.Minute), false, due},
		{"claimed again", now.Add(6 * time.Minute), true, due},
		{"its lease ran out", now.Add(8 * time.Minute), true, due},
	}
	for _, st := range steps {
		if got := stats(st.at); st.claim && got != st.at.Sub(st.due) {
			t.Fatalf("%s: OldestDue before %v, want %v (from the due time)", st.name, got, st.at.Sub(st.due))
		}
		if !st.claim {
			if err := s.Release(ctx, "p", []int64{first.ID}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got := claim(t, s, "p", st.at, "nowhere")
		if len(got) != 1 || !got[0].DueAt.Equal(st.due) {
			t.Fatalf("%s: claimed %s; want one due at %v", st.name, dueTimes(got), st.due)
		}
		if stats(st.at) != 0 {
			t.Fatalf("%s: a claimed delivery is the dispatcher's to count, not the store's", st.name)
		}
		first = got[0]
	}
	retry := now.Add(time.Hour)
	finish(t, s, first, "p", store.Pending, retry)
	if got := stats(retry.Add(time.Second)); got != time.Second {
		t.Fatalf("a retry counts from its time: OldestDue %v, want 1s", got)
	}
	if got := claim(t, s, "p", retry.Add(time.Second)); len(got) != 1 || !got[0].DueAt.Equal(retry) {
		t.Fatalf("the retry claimed: %s; want one due at %v", dueTimes(got), retry)
	}
}

// dueTimes describes claimed deliveries by id and due time.
func dueTimes(claimed []store.Claimed) string {
	var parts []string
	for _, c := range claimed {
		parts = append(parts, fmt.Sprintf("%d due at %v", c.ID, c.DueAt))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
