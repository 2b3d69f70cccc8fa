package notify_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/deliver/notify"
	"github.com/pads-dev/pads/internal/store"
)

func TestTrackerMakesFailingRecoveredAndHourlyFailedEvents(t *testing.T) {
	t.Parallel()
	hook := store.DestinationRef{ClientID: "acme", ID: "hook"}
	other := store.DestinationRef{ClientID: "acme", ID: "other"}
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	fail := func(d store.DestinationRef) notify.Outcome {
		return notify.Outcome{Destination: d, ErrorClass: "http_5xx", StatusCode: 503}
	}
	failedForGood := func(d store.DestinationRef, id int64) notify.Outcome {
		o := fail(d)
		o.FailedForGood, o.DeliveryID, o.MessageID, o.DataType = true, id, "msg_x", "sensitive"
		return o
	}
	steps := []struct {
		name string
		o    notify.Outcome
		at   time.Duration
		want []string // event types, with a count where one matters
	}{
		{"first failure", fail(hook), 0, nil},
		{"second failure", fail(hook), time.Second, nil},
		{"another destination's failure counts apart", fail(other), 2 * time.Second, nil},
		{"third in a row: failing", fail(hook), 3 * time.Second, []string{"destination.failing 3"}},
		{"fourth: still failing, told once", fail(hook), 4 * time.Second, nil},
		{"failed for good: told", failedForGood(hook, 7), 5 * time.Second, []string{"delivery.failed 1"}},
		{"another within the hour: counted, not told", failedForGood(hook, 8), 10 * time.Minute, nil},
		{"and another", failedForGood(hook, 9), 20 * time.Minute, nil},
		{"a success: recovered", notify.Outcome{Destination: hook, OK: true}, 30 * time.Minute, []string{"destination.recovered 7"}},
		{"a success when not failing: nothing", notify.Outcome{Destination: hook, OK: true}, 31 * time.Minute, nil},
		{"an hour after the last told: told with the untold ones", failedForGood(hook, 10), 61 * time.Minute, []string{"delivery.failed 3"}},
	}
	tr := notify.NewTracker(func() int { return 3 })
	for _, s := range steps {
		var got []string
		for _, e := range tr.Observe(s.o, t0.Add(s.at)) {
			n := e.Data.ConsecutiveFailures
			if e.Type == notify.DeliveryFailed {
				n = e.Data.FailedForGood
				if e.Data.DeliveryID != s.o.DeliveryID || e.Data.MessageID != "msg_x" {
					t.Errorf("%s: %+v does not name its delivery", s.name, e.Data)
				}
			}
			if e.Data.Client != "acme" || e.Data.Destination != "hook" {
				t.Errorf("%s: %+v does not name its destination", s.name, e.Data)
			}
			got = append(got, e.Type+" "+strconv.Itoa(n))
		}
		if len(got) != len(s.want) || (len(got) > 0 && got[0] != s.want[0]) {
			t.Fatalf("%s: events %v, want %v", s.name, got, s.want)
		}
	}
}
