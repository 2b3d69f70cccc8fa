package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var outboxTests = []test{
	{"SaveEnqueuesOneDeliveryPerDestination", testEnqueue},
	{"ClaimLeasesAndExpiredLeasesAreDueAgain", testClaimLeases},
	{"FinishRetryFailReplay", testFinishAndReplay},
	{"ConcurrentClaimersNeverShareADelivery", testConcurrentClaims},
	{"ARecordsDeliveriesGoInOrderPerDestination", testRecordOrder},
	{"AnUnorderedDestinationTakesThemAsTheyCome", testUnordered},
	{"HeldAnswersTheOwnersPendingLeases", testHeld},
}

// enqueue saves a completed form for a new patient of acme, enqueuing one
// non-sensitive delivery to each of its destinations, d1 and d2.
func enqueue(t *testing.T, h *harness, email string) Result {
	t.Helper()
	return h.save(t, "acme", req("acme", "", email, record.Fields{FormCompleted: new(true), FirstName: new("Ada")}))
}

func claim(t *testing.T, s store.Store, owner string, now time.Time, skip ...string) []store.Claimed {
	t.Helper()
	var refs []store.DestinationRef
	for _, id := range skip {
		refs = append(refs, store.DestinationRef{ClientID: "acme", ID: id})
	}
	c, err := s.Claim(context.Background(), store.ClaimRequest{Owner: owner, Now: now, LeaseUntil: now.Add(time.Minute), Limit: 100, Skip: refs})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testEnqueue(t *testing.T, o Opener) {
	s := open(t, o)
	res := enqueue(t, s, "ada@example.com")
	if res.Deliveries != 2 {
		t.Fatalf("Deliveries = %d, want 2", res.Deliveries)
	}
	if r := enqueue(t, s, "ada@example.com"); r.Deliveries != 0 {
		t.Fatal("a later save must not enqueue again")
	}
	got := claim(t, s, "p1", time.Now().Add(time.Second))
	if len(got) != 2 || got[0].MessageID == got[1].MessageID || got[0].EventID != got[1].EventID {
		t.Fatalf("claimed %+v", got)
	}
	var body map[string]any
	if err := json.Unmarshal(got[0].Payload, &body); err != nil || body["uuid"] != res.PatientUUID || body["firstName"] != "Ada" {
		t.Fatalf("payload %s: %v", got[0].Payload, err)
	}
	if got[0].DataType != record.NonSensitive || got[0].Key.PatientUUID != res.PatientUUID || got[0].Series != 1 || got[0].Model != suiteModel {
		t.Fatalf("delivery %+v", got[0].Delivery)
	}
}

func testClaimLeases(t *testing.T, o Opener) {
	s := open(t, o)
	enqueue(t, s, "a@example.com")
	now := time.Now().Add(time.Second)
	if got := claim(t, s, "p1", now, "d2"); len(got) != 1 || got[0].Destination != "d1" {
		t.Fatalf("skip d2: %+v", got)
	}
	if got := claim(t, s, "p2", now); len(got) != 1 || got[0].Destination != "d2" {
		t.Fatalf("d1 is leased to p1: %+v", got)
	}
	if got := claim(t, s, "p3", now.Add(30*time.Second)); len(got) != 0 {
		t.Fatalf("leases still held: %+v", got)
	}
	later := claim(t, s, "p3", now.Add(time.Minute))
	if len(later) != 2 {
		t.Fatalf("after the leases ran out both are due again: %+v", later)
	}
	if err := s.Release(context.Background(), "p3", []int64{later[0].ID}); err != nil {
		t.Fatal(err)
	}
	// A released delivery is due since it was made, not since 1970.
	if st, err := s.OutboxStats(context.Background(), now.Add(time.Minute)); err != nil || st.OldestDue <= 0 || st.OldestDue > time.Hour {
		t.Fatalf("stats after a release: %+v, %v", st, err)
	}
	if got := claim(t, s, "p4", now.Add(time.Minute)); len(got) != 1 || got[0].ID != later[0].ID {
		t.Fatalf("a released delivery is due at once: %+v", got)
	}
	// p4 holds its owner (its process lives); p3 never did: a process that
	// died. Taking over drops p3's lease and keeps p4's and the caller's.
	hold, err := s.HoldOwner(context.Background(), "p4")
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Release()
	if hold.Lost(context.Background()) {
		t.Fatal("a fresh hold is lost")
	}
	if n, err := s.TakeOver(context.Background(), "p4"); err != nil || n != 1 {
		t.Fatalf("TakeOver = %d, %v; want p3's one lease", n, err)
	}
	if got := claim(t, s, "p5", now.Add(time.Minute)); len(got) != 1 || got[0].ID == later[0].ID {
		t.Fatalf("after TakeOver p3's delivery is due, p4's is not: %+v", got)
	}
}

func testFinishAndReplay(t *testing.T, o Opener) {
	s := open(t, o)
	ctx := context.Background()
	enqueue(t, s, "a@example.com")
	now := time.Now().Add(time.Second)
	d := claim(t, s, "p1", now, "d2")[0]
	retryAt := now.Add(10 * time.Minute)
	fin := store.Finished{Attempt: store.Attempt{DeliveryID: d.ID, MessageID: d.MessageID, Series: 1, Number: 1, Owner: "p1", StartedAt: now,
		Duration: 40 * time.Millisecond, StatusCode: 500, ErrorClass: "http_5xx", Response: []byte(`{"error":"boom"}`)},
		State: store.Pending, NextAt: retryAt}
	if err := s.Finish(ctx, fin); err != nil {
		t.Fatal(err)
	}
	if got := claim(t, s, "p1", now.Add(time.Minute), "d2"); len(got) != 0 {
		t.Fatal("a delivery waiting for its retry is not due")
	}
	if at, ok, err := s.NextDue(ctx, now); err != nil || !ok || !at.Equal(retryAt) {
		t.Fatalf("NextDue = %v %v %v, want %v", at, ok, err, retryAt)
	}
	if _, ok, _ := s.NextDue(ctx, retryAt); ok {
		t.Fatal("nothing is due after the retry")
	}
	d = claim(t, s, "p1", retryAt, "d2")[0]
	// A finish from a process that lost the lease records the attempt but
	// does not move the delivery.
	stale := fin
	stale.Owner, stale.Number, stale.State = "p9", 2, store.Delivered
	if err := s.Finish(ctx, stale); err != nil {
		t.Fatal(err)
	}
	fin.Number, fin.State, fin.StartedAt = 2, store.Failed, retryAt
	if err := s.Finish(ctx, fin); err != nil {
		t.Fatal(err)
	}
	got, attempts, err := s.Delivery(ctx, d.ID)
	if err != nil || got.State != store.Failed || got.Attempts != 2 || got.LastError != "http_5xx" || len(attempts) != 3 {
		t.Fatalf("Delivery = %+v, %d attempts, %v", got, len(attempts), err)
	}
	if a := attempts[0]; a.StatusCode != 500 || string(a.Response) != `{"error":"boom"}` || a.Owner != "p1" || a.Duration != 40*time.Millisecond {
		t.Fatalf("attempt = %+v", a)
	}
	if failed, _ := s.Deliveries(ctx, store.DeliveryFilter{State: store.Failed}); len(failed) != 1 {
		t.Fatalf("failed deliveries: %+v", failed)
	}
	if st, _ := s.OutboxStats(ctx, retryAt); st.Failed != 1 || st.Pending != 1 { // d2's is still pending
		t.Fatalf("stats %+v", st)
	}
	n, err := s.Replay(ctx, store.ReplayRequest{ID: d.ID, Now: retryAt})
	if err != nil || n != 1 {
		t.Fatalf("Replay = %d, %v", n, err)
	}
	again := claim(t, s, "p1", retryAt.Add(time.Second), "d2")
	if len(again) != 1 || again[0].MessageID != d.MessageID || again[0].Series != 2 || again[0].Attempts != 0 {
		t.Fatalf("replayed: %+v", again)
	}
	fin.Series, fin.Number, fin.State = 2, 1, store.Failed
	s.Finish(ctx, fin)
	if n, _ := s.Replay(ctx, store.ReplayRequest{Since: retryAt.Add(time.Hour), Now: retryAt}); n != 0 {
		t.Fatal("replay --since must skip older failures")
	}
	if n, _ := s.Replay(ctx, store.ReplayRequest{Since: now.Add(-time.Hour), ClientID: "acme", Now: retryAt}); n != 1 {
		t.Fatal("replay --failed must take the failed delivery")
	}
	if _, _, err := s.Delivery(ctx, 424242); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown delivery: %v", err)
	}
}

func testConcurrentClaims(t *testing.T, o Opener) {
	s := open(t, o)
	for i := range 30 { // two deliveries each
		enqueue(t, s, string(rune('a'+i%26))+string(rune('a'+i/26))+"@example.com")
	}
	now := time.Now().Add(time.Second)
	var mu sync.Mutex
	seen := map[int64]string{}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			owner := string(rune('A' + w))
			for range 20 {
				got, err := s.Claim(context.Background(), store.ClaimRequest{Owner: owner, Now: now, LeaseUntil: now.Add(time.Minute), Limit: 3})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, c := range got {
					if prev, dup := seen[c.ID]; dup {
						t.Errorf("delivery %d claimed by %s and %s", c.ID, prev, owner)
					}
					seen[c.ID] = owner
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 60 {
		t.Fatalf("claimed %d of 60", len(seen))
	}
}

// describe names claimed deliveries by data type and destination.
func describe(claimed []store.Claimed) string {
	var parts []string
	for _, c := range claimed {
		parts = append(parts, string(c.DataType)+"->"+c.Destination)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// byEvent picks the claimed deliveries of one data type, by destination.
func byEvent(claimed []store.Claimed, dt record.DataType) map[string]store.Claimed {
	out := map[string]store.Claimed{}
	for _, c := range claimed {
		if c.DataType == dt {
			out[c.Destination] = c
		}
	}
	return out
}

func finish(t *testing.T, s store.Store, c store.Claimed, owner, state string, next time.Time) {
	t.Helper()
	err := s.Finish(context.Background(), store.Finished{Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID,
		Series: c.Series, Number: c.Attempts + 1, Owner: owner, StartedAt: time.Now()}, State: state, NextAt: next})
	if err != nil {
		t.Fatal(err)
	}
}

// A record's sensitive deliveries wait while its non-sensitive ones to
// the same destination are pending, retries included, and go once those
// are delivered or failed for good; other destinations are not held up.
func testRecordOrder(t *testing.T, o Opener) {
	s := open(t, o)
	uuid := s.save(t, "acme", req("acme", "", "a@example.com", record.Fields{FormCompleted: new(true)})).PatientUUID
	s.save(t, "acme", req("acme", uuid, "a@example.com", record.Fields{AssessmentCompleted: new(true)}))
	now := time.Now().Add(time.Second)
	first := claim(t, s, "p", now)
	if len(first) != 2 || len(byEvent(first, record.NonSensitive)) != 2 {
		t.Fatalf("first claim: %s; want the two non-sensitive deliveries only", describe(first))
	}
	ns := byEvent(first, record.NonSensitive)
	finish(t, s, ns["d1"], "p", store.Pending, now.Add(time.Hour)) // a retry, an hour away
	finish(t, s, ns["d2"], "p", store.Delivered, time.Time{})
	got := claim(t, s, "p", now.Add(time.Second))
	if len(got) != 1 || got[0].DataType != record.Sensitive || got[0].Destination != "d2" {
		t.Fatalf("after d2's non-sensitive delivery: %s; want d2's sensitive one, d1's held", describe(got))
	}
	finish(t, s, got[0], "p", store.Delivered, time.Time{})
	if held := claim(t, s, "p", now.Add(2*time.Second)); len(held) != 0 {
		t.Fatalf("while d1's non-sensitive delivery waits for its retry: claimed %s", describe(held))
	}
	retried := claim(t, s, "p", now.Add(time.Hour+time.Second))
	if len(retried) != 1 || retried[0].DataType != record.NonSensitive {
		t.Fatalf("at the retry: %s", describe(retried))
	}
	finish(t, s, retried[0], "p", store.Failed, time.Time{})
	if got := claim(t, s, "p", now.Add(time.Hour+2*time.Second)); len(got) != 1 || got[0].DataType != record.Sensitive || got[0].Destination != "d1" {
		t.Fatalf("once d1's non-sensitive delivery failed for good: %s", describe(got))
	}
}

func testUnordered(t *testing.T, o Opener) {
	s := open(t, o)
	uuid := s.save(t, "acme", req("acme", "", "a@example.com", record.Fields{FormCompleted: new(true)})).PatientUUID
	s.save(t, "acme", req("acme", uuid, "a@example.com", record.Fields{AssessmentCompleted: new(true)}))
	now := time.Now().Add(time.Second)
	got, err := s.Claim(context.Background(), store.ClaimRequest{Owner: "p", Now: now, LeaseUntil: now.Add(time.Minute), Limit: 10,
		Unordered: []store.DestinationRef{{ClientID: "acme", ID: "d1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(byEvent(got, record.NonSensitive)) != 2 || len(byEvent(got, record.Sensitive)) != 1 || byEvent(got, record.Sensitive)["d1"].ID == 0 {
		t.Fatalf("claimed %s; want both non-sensitive and d1's sensitive delivery", describe(got))
	}
}
