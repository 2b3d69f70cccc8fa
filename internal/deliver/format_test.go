package deliver_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/snapshot"
	"github.com/pads-dev/pads/internal/store"
)

// onceOutbox hands out its deliveries on the first claim and records
// what each attempt came to.
type onceOutbox struct {
	store.Outbox
	mu       sync.Mutex
	pending  []store.Claimed
	finished map[int64]store.Finished
}

func (o *onceOutbox) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.pending
	o.pending = nil
	return c, nil
}

func (o *onceOutbox) Finish(ctx context.Context, f store.Finished) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.finished[f.DeliveryID] = f
	return nil
}

func (o *onceOutbox) done() map[int64]store.Finished {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[int64]store.Finished{}
	for k, v := range o.finished {
		out[k] = v
	}
	return out
}

func (o *onceOutbox) Held(_ context.Context, _ string, ids []int64) ([]int64, error) { return ids, nil }
func (o *onceOutbox) Release(context.Context, string, []int64) error                 { return nil }
func (o *onceOutbox) HoldOwner(context.Context, string) (store.OwnerHold, error) {
	return noHold{}, nil
}
func (o *onceOutbox) TakeOver(context.Context, string) (int, error) { return 0, nil }
func (o *onceOutbox) NextDue(context.Context, time.Time) (time.Time, bool, error) {
	return time.Time{}, false, nil
}

type noHold struct{}

func (noHold) Lost(context.Context) bool { return false }
func (noHold) Release()                  {}

// recordingSender keeps the messages it was given, by message id.
type recordingSender struct {
	mu   sync.Mutex
	sent map[string]deliver.Message
}

func (s *recordingSender) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent[m.ID] = m
	return deliver.Result{StatusCode: 200}
}

// Each attempt sends the body of its destination's format in force: the
// seed payload, or the FHIR Bundle snapshotted with it. An event raised
// before pads made Bundles fails for good at a fhir-r4 destination
// (fhir_unavailable): pads never sends a body of another format.
func TestAnAttemptSendsTheBodyOfItsDestinationsFormat(t *testing.T) {
	t.Parallel()
	dests := map[string]*deliver.Destination{}
	for id, format := range map[string]string{"json": deliver.FormatSeedJSON, "fhir": deliver.FormatFHIR, "default": ""} {
		dests[id] = &deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: id}, Type: "webhook", Format: format,
			Timeout: time.Second, Retry: deliver.Retry{Attempts: 1}}
	}
	claimed := func(id int64, dest string, bundle []byte) store.Claimed {
		return store.Claimed{Delivery: store.Delivery{ID: id, MessageID: "msg_" + dest + string(rune('0'+id)), Destination: dest,
			Key: record.Key{ClientID: "acme", PatientUUID: "u"}}, Payload: []byte(`{"uuid":"u"}`), FHIR: bundle}
	}
	bundle := []byte(`{"resourceType":"Bundle"}`)
	outbox := &onceOutbox{finished: map[int64]store.Finished{}, pending: []store.Claimed{
		claimed(1, "json", bundle), claimed(2, "fhir", bundle), claimed(3, "default", bundle), claimed(4, "fhir", nil)}}
	sender := &recordingSender{sent: map[string]deliver.Message{}}
	resolve := func(ref store.DestinationRef) (*deliver.Destination, bool) { d, ok := dests[ref.ID]; return d, ok }
	synctest.Test(t, func(t *testing.T) {
		d := deliver.NewDispatcher(outbox, resolve, map[string]deliver.Sender{"webhook": sender}, slog.New(slog.DiscardHandler),
			noObserver{}, deliver.Options{Poll: 10 * time.Millisecond})
		d.Start()
		advance(time.Second)
		d.Stop(context.Background())
	})
	want := map[string]struct{ format, body string }{
		"msg_json1":    {deliver.FormatSeedJSON, `{"uuid":"u"}`},
		"msg_fhir2":    {deliver.FormatFHIR, string(bundle)},
		"msg_default3": {deliver.FormatSeedJSON, `{"uuid":"u"}`},
	}
	for id, w := range want {
		if m := sender.sent[id]; m.Format != w.format || string(m.Body) != w.body {
			t.Errorf("%s sent %s %s, want %s %s", id, m.Format, m.Body, w.format, w.body)
		}
	}
	if _, sent := sender.sent["msg_fhir4"]; sent {
		t.Error("a delivery without a Bundle went to a fhir-r4 destination")
	}
	if f := outbox.done()[4]; f.State != store.Failed || f.ErrorClass != deliver.ClassNoFHIR {
		t.Errorf("delivery without a Bundle finished %s %q, want failed %s", f.State, f.ErrorClass, deliver.ClassNoFHIR)
	}
}

// An event kept as a snapshot has its body built at each attempt, in the
// format its destination has then: the same delivery goes as the seed
// payload while its destination is seed-json, and as the FHIR Bundle once
// the destination changed to fhir-r4 (both from the results stored at the
// save). A snapshot that does not build fails for good
// (payload_unreadable) and sends nothing.
func TestASnapshotIsBuiltInTheDestinationsCurrentFormat(t *testing.T) {
	t.Parallel()
	rec := record.Record{Key: record.Key{ClientID: "acme", PatientUUID: "u", AssessmentType: "a"}, FunnelID: "f",
		Fields: record.Fields{HeartRateBpm: new(72.0), Age: new(40.0)}, UpdatedAt: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}
	snap, _, err := snapshot.Take(record.Sensitive, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := &deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: "d"}, Type: "webhook", Format: deliver.FormatSeedJSON,
		Timeout: time.Second, Retry: deliver.Retry{Attempts: 3}}
	var mu sync.Mutex
	resolve := func(store.DestinationRef) (*deliver.Destination, bool) {
		mu.Lock()
		defer mu.Unlock()
		d := *dest
		return &d, true
	}
	claimed := func(id int64, body []byte) store.Claimed {
		return store.Claimed{Delivery: store.Delivery{ID: id, MessageID: fmt.Sprintf("msg_%d", id), Destination: "d",
			DataType: record.Sensitive, Key: rec.Key}, Payload: body, Snapshot: true}
	}
	sender := &recordingSender{sent: map[string]deliver.Message{}}
	run := func(o *onceOutbox) {
		synctest.Test(t, func(t *testing.T) {
			d := deliver.NewDispatcher(o, resolve, map[string]deliver.Sender{"webhook": sender}, slog.New(slog.DiscardHandler),
				noObserver{}, deliver.Options{Poll: 10 * time.Millisecond})
			d.Start()
			advance(time.Second)
			d.Stop(context.Background())
		})
	}
	outbox := &onceOutbox{finished: map[int64]store.Finished{}, pending: []store.Claimed{claimed(1, snap), claimed(2, []byte(`{"v":9}`))}}
	run(outbox)
	wantJSON, _ := snapshot.Body(snapshot.FormatSeedJSON, record.Sensitive, snap, "")
	if m := sender.sent["msg_1"]; m.Format != deliver.FormatSeedJSON || string(m.Body) != string(wantJSON) {
		t.Errorf("sent %s %s, want the seed payload %s", m.Format, m.Body, wantJSON)
	}
	if _, sent := sender.sent["msg_2"]; sent {
		t.Error("a snapshot that does not build was sent")
	}
	if f := outbox.done()[2]; f.State != store.Failed || f.ErrorClass != deliver.ClassPayloadUnreadable {
		t.Errorf("a snapshot that does not build finished %s %q", f.State, f.ErrorClass)
	}

	mu.Lock()
	dest.Format = deliver.FormatFHIR
	mu.Unlock()
	run(&onceOutbox{finished: map[int64]store.Finished{}, pending: []store.Claimed{claimed(1, snap)}})
	wantFHIR, _ := snapshot.Body(snapshot.FormatFHIR, record.Sensitive, snap, "")
	if m := sender.sent["msg_1"]; m.Format != deliver.FormatFHIR || string(m.Body) != string(wantFHIR) || !strings.Contains(string(m.Body), `"Bundle"`) {
		t.Errorf("after the format changed, sent %s %s, want the Bundle", m.Format, m.Body)
	}
}
