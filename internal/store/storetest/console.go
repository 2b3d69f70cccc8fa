package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var consoleTests = []test{
	{"DeliveryPagesFilterAndWalkEveryDeliveryOnce", testDeliveryPages},
	{"DestinationStatsCountWindowsAndSampleAttempts", testDestinationStats},
	{"ThroughputCountsEachMinuteByState", testThroughput},
	{"CountReplayCountsWhatReplayChanges", testCountReplay},
	{"AuditPagesFilterByActorAndAction", testAuditPages},
}

// consoleClients gives two clients destinations: acme d1 and d2, initech d3.
var consoleClients = map[string]Client{
	"acme":    {Full: true, Destinations: []string{"d1", "d2"}},
	"initech": {Full: true, Destinations: []string{"d3"}},
}

// consoleBase is the suite's clock origin: deliveries are made at fixed
// times after it, and the console's windows are measured from fixed times.
var consoleBase = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// consoleData saves records at fixed times and moves their deliveries to
// a mix of states, then returns every delivery (newest first, as a page
// orders them).
//
// At minute i (0 to 23) a patient of acme completes the form (one
// delivery to d1 and one to d2, at the same nanosecond); every third one
// also completes the assessment (two sensitive deliveries). At minute i
// a patient of initech completes the form when i is even (one delivery
// to d3); at minute 4 initech's patient has the uuid of acme's (a patient
// of two clients). Deliveries to d1 are delivered, to d2 failed when their record
// is even, and the rest stay pending.
func consoleData(t *testing.T, h *harness) []store.Delivery {
	t.Helper()
	ctx := context.Background()
	var now time.Time
	saves := SavesFor(h.Store, consoleClients)
	saves.Now = func() time.Time { return now }
	for i := range 24 {
		now = consoleBase.Add(time.Duration(i) * time.Minute)
		email := fmt.Sprintf("p%d@example.com", i)
		saved, err := saves.Save(ctx, "acme", Request("acme", "", email, record.Fields{FormCompleted: new(true)}))
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			now = now.Add(time.Second)
			if _, err := saves.Save(ctx, "acme", Request("acme", "", email, record.Fields{AssessmentCompleted: new(true)})); err != nil {
				t.Fatal(err)
			}
		}
		if i%2 == 0 {
			uuid := ""
			if i == 4 {
				uuid = saved.PatientUUID
			}
			if _, err := saves.Save(ctx, "initech", Request("initech", uuid, email, record.Fields{FormCompleted: new(true)})); err != nil {
				t.Fatal(err)
			}
		}
	}
	at := consoleBase.Add(time.Hour)
	claimed, err := h.Claim(ctx, store.ClaimRequest{Owner: "p1", Now: at, LeaseUntil: at.Add(time.Minute), Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claimed {
		f := store.Finished{Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID, Series: 1, Number: 1, Owner: "p1",
			StartedAt: c.CreatedAt.Add(time.Second), Duration: time.Duration(c.ID) * time.Millisecond}}
		switch {
		case c.Destination == "d1":
			f.State, f.StatusCode = store.Delivered, 200
		case c.Destination == "d2" && c.EventID%2 == 0:
			f.State, f.StatusCode, f.ErrorClass = store.Failed, 500, "http_5xx"
		default:
			if err := h.Release(ctx, "p1", []int64{c.ID}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := h.Finish(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	all, err := h.Deliveries(ctx, store.DeliveryFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b store.Delivery) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	return all
}

func testDeliveryPages(t *testing.T, o Opener) {
	h := open(t, o)
	all := consoleData(t, h)
	if len(all) != 24*2+8*2+12 {
		t.Fatalf("made %d deliveries, want %d", len(all), 24*2+8*2+12)
	}
	from, to := consoleBase.Add(5*time.Minute), consoleBase.Add(17*time.Minute)
	shared, only := patientOf(t, all, "initech", 4), patientOf(t, all, "acme", 3) // of two clients; of acme only
	queries := []store.DeliveryQuery{
		{PatientUUID: shared},
		{PatientUUID: shared, ClientID: "initech"},
		{PatientUUID: shared, State: store.Pending},
		{PatientUUID: only},
		{PatientUUID: only, ClientID: "initech"},
		{PatientUUID: "ffffffff-0000-4000-8000-000000000000"},
		{},
		{ClientID: "acme"},
		{ClientID: "initech"},
		{ClientID: "acme", Destination: "d2"},
		{ClientID: "acme", Destination: "d2", State: store.Failed},
		{ClientID: "acme", State: store.Pending},
		{State: store.Delivered},
		{State: store.Failed, DataType: record.Sensitive},
		{DataType: record.NonSensitive},
		{From: from, To: to},
		{ClientID: "acme", Destination: "d1", From: from},
		{ClientID: "acme", To: to, DataType: record.Sensitive},
		{ClientID: "nobody"},
	}
	for _, q := range queries {
		var want []int64
		for _, d := range all {
			if matches(q, d) {
				want = append(want, d.ID)
			}
		}
		for _, size := range []int{1, 7, 1000} {
			q := q
			q.Limit = size
			var got []int64
			for range len(all) + 1 {
				page, err := h.DeliveryPage(context.Background(), q)
				if err != nil {
					t.Fatalf("%+v: %v", q, err)
				}
				if len(page) > size {
					t.Fatalf("%+v: a page of %d", q, len(page))
				}
				for _, d := range page {
					got = append(got, d.ID)
				}
				if len(page) < size {
					break
				}
				last := page[len(page)-1]
				q.After = &store.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%+v in pages of %d:\n got %v\nwant %v", q, size, got, want)
			}
		}
	}
	page, _ := h.DeliveryPage(context.Background(), store.DeliveryQuery{ClientID: "acme", Destination: "d2", State: store.Failed, Limit: 1})
	if len(page) != 1 || page[0].LastError != "http_5xx" || page[0].Key.PatientUUID == "" || page[0].Model != suiteModel {
		t.Fatalf("a page's delivery: %+v", page)
	}
}

// patientOf returns the uuid of client's patient whose record was made at
// minute i of consoleData.
func patientOf(t *testing.T, all []store.Delivery, client string, i int) string {
	t.Helper()
	at := consoleBase.Add(time.Duration(i) * time.Minute)
	for _, d := range all {
		if d.Key.ClientID == client && d.CreatedAt.Equal(at) {
			return d.Key.PatientUUID
		}
	}
	t.Fatalf("no delivery of %s at minute %d", client, i)
	return ""
}

func matches(q store.DeliveryQuery, d store.Delivery) bool {
	return (q.ClientID == "" || d.Key.ClientID == q.ClientID) &&
		(q.PatientUUID == "" || d.Key.PatientUUID == q.PatientUUID) &&
		(q.Destination == "" || d.Destination == q.Destination) &&
		(q.State == "" || d.State == q.State) &&
		(q.DataType == "" || d.DataType == q.DataType) &&
		(q.From.IsZero() || !d.CreatedAt.Before(q.From)) &&
		(q.To.IsZero() || d.CreatedAt.Before(q.To))
}

func testDestinationStats(t *testing.T, o Opener) {
	h := open(t, o)
	all := consoleData(t, h)
	ctx := context.Background()
	now := consoleBase.Add(80 * time.Minute) // the hour holds minutes 20 to 23
	idle := store.DestinationRef{ClientID: "globex", ID: "quiet"}
	stats, err := h.DestinationStats(ctx, store.StatsQuery{Now: now, Destinations: []store.DestinationRef{idle}, Samples: 5})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, s := range stats {
		refs = append(refs, s.ClientID+"/"+s.ID)
	}
	if want := []string{"acme/d1", "acme/d2", "globex/quiet", "initech/d3"}; !slices.Equal(refs, want) {
		t.Fatalf("destinations %v, want %v", refs, want)
	}
	for _, s := range stats {
		var hour, day store.StateCounts
		var oldest time.Time
		var attempts []store.Delivery
		for _, d := range all {
			if d.Key.ClientID != s.ClientID || d.Destination != s.ID {
				continue
			}
			day.Add(d.State, 1)
			if !d.CreatedAt.Before(now.Add(-time.Hour)) {
				hour.Add(d.State, 1)
			}
			if d.State == store.Pending && (oldest.IsZero() || d.CreatedAt.Before(oldest)) {
				oldest = d.CreatedAt
			}
			if d.Attempts > 0 {
				attempts = append(attempts, d)
			}
		}
		if s.Hour != hour || s.Day != day || !s.OldestPending.Equal(oldest) {
			t.Errorf("%s/%s: hour %+v day %+v oldest %v; want %+v %+v %v", s.ClientID, s.ID, s.Hour, s.Day, s.OldestPending, hour, day, oldest)
		}
		// Each attempt started a second after its delivery was created.
		slices.SortFunc(attempts, func(a, b store.Delivery) int {
			return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
		})
		var want []int64
		for _, d := range attempts[:min(5, len(attempts))] {
			want = append(want, d.ID)
		}
		var got []int64
		for _, a := range s.Recent {
			got = append(got, a.DeliveryID)
			if a.Duration != time.Duration(a.DeliveryID)*time.Millisecond || a.Owner != "p1" || a.Number != 1 {
				t.Errorf("sampled attempt %+v", a)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s/%s: recent attempts of deliveries %v, want %v", s.ClientID, s.ID, got, want)
		}
	}
	if s := stats[1]; s.Recent[0].ErrorClass != "http_5xx" || s.Recent[0].StatusCode != 500 {
		t.Errorf("d2's latest attempt: %+v", s.Recent[0])
	}
	// A day later nothing is in the windows, and no attempt is recent.
	later, err := h.DestinationStats(ctx, store.StatsQuery{Now: now.Add(48 * time.Hour), Samples: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range later {
		if s.Day != (store.StateCounts{}) || len(s.Recent) != 0 {
			t.Errorf("two days later %s/%s: %+v", s.ClientID, s.ID, s)
		}
	}
}

func testThroughput(t *testing.T, o Opener) {
	h := open(t, o)
	all := consoleData(t, h)
	from := consoleBase.Add(-2 * time.Minute)
	buckets, err := h.Throughput(context.Background(), from, consoleBase.Add(10*time.Minute+30*time.Second), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(buckets) != 13 {
		t.Fatalf("%d buckets, want 13", len(buckets))
	}
	for i, b := range buckets {
		var want store.StateCounts
		for _, d := range all {
			if !d.CreatedAt.Before(b.Start) && d.CreatedAt.Before(b.Start.Add(time.Minute)) {
				want.Add(d.State, 1)
			}
		}
		if !b.Start.Equal(from.Add(time.Duration(i)*time.Minute)) || b.StateCounts != want {
			t.Errorf("bucket %d: %v %+v, want %+v", i, b.Start, b.StateCounts, want)
		}
	}
}

func testCountReplay(t *testing.T, o Opener) {
	h := open(t, o)
	consoleData(t, h)
	ctx := context.Background()
	since := consoleBase.Add(10 * time.Minute)
	at := consoleBase.Add(2 * time.Hour)
	for _, r := range []store.ReplayRequest{
		{Since: since, ClientID: "acme", Destination: "d1"}, // none failed
		{Since: since, ClientID: "initech"},
		{Since: since, ClientID: "acme", Destination: "d2"},
		{Since: consoleBase, ClientID: "acme"},
		{Since: consoleBase},
	} {
		r.Now = at
		n, err := h.CountReplay(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		replayed, err := h.Replay(ctx, r)
		if err != nil || replayed != n {
			t.Fatalf("%+v: CountReplay %d, Replay %d, %v", r, n, replayed, err)
		}
		if r.Destination == "d2" && n == 0 {
			t.Fatal("d2 has failed deliveries since minute 10")
		}
		if again, _ := h.CountReplay(ctx, r); again != 0 {
			t.Fatalf("%+v: %d left to replay after the replay", r, again)
		}
	}
}

func testAuditPages(t *testing.T, o Opener) {
	h := open(t, o)
	ctx := context.Background()
	var all []store.AuditEntry
	for i := range 30 {
		e := store.AuditEntry{At: consoleBase.Add(time.Duration(i) * time.Second), Actor: []string{"admin:ops", "console:ada", "cli:bob"}[i%3],
			Action: []string{"deliveries.list", "deliveries.show"}[i%2], Target: fmt.Sprintf("delivery:%d", i)}
		if err := h.Audit(ctx, e); err != nil {
			t.Fatal(err)
		}
		all = append(all, e)
	}
	slices.Reverse(all)
	for _, q := range []store.AuditQuery{{}, {Actor: "console:ada"}, {Action: "deliveries.show"}, {Actor: "cli:bob", Action: "deliveries.list"}, {Actor: "nobody"}} {
		var want []string
		for _, e := range all {
			if (q.Actor == "" || e.Actor == q.Actor) && (q.Action == "" || e.Action == q.Action) {
				want = append(want, e.Target)
			}
		}
		q.Limit = 4
		var got []string
		for range len(all) + 1 {
			page, err := h.AuditPage(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page {
				got = append(got, e.Target)
			}
			if len(page) < q.Limit {
				break
			}
			q.Before = page[len(page)-1].ID
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v:\n got %v\nwant %v", q, got, want)
		}
	}
}
