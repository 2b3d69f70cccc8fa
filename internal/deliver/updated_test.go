package deliver

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// states is an outbox that knows only the states of messages.
type states struct {
	store.Outbox
	of  map[string]string
	err error
}

func (s states) MessageState(ctx context.Context, id string) (string, error) {
	if s.err != nil {
		return "", s.err
	}
	st, ok := s.of[id]
	if !ok {
		return "", store.ErrNotFound
	}
	return st, nil
}

// A results-updated delivery is sent only once the message it updates was
// delivered to its destination: a failed one fails it for good, a pending
// one (or a store that does not answer) makes it wait; one no longer on
// record (removed by retention once finished), a delivery of another
// type, or an update naming none, passes.
func TestAnUpdateGoesOnlyOnceTheMessageItUpdatesWasDelivered(t *testing.T) {
	t.Parallel()
	snap := []byte(`{"v":1,"updates":{"ehr":"msg_a"}}`)
	tests := []struct {
		name      string
		dt        record.DataType
		dest      string
		states    states
		class     string
		permanent bool
	}{
		{"delivered", record.ResultsUpdated, "ehr", states{of: map[string]string{"msg_a": store.Delivered}}, "", false},
		{"failed", record.ResultsUpdated, "ehr", states{of: map[string]string{"msg_a": store.Failed}}, ClassUpdatedUndelivered, true},
		{"no longer on record", record.ResultsUpdated, "ehr", states{of: map[string]string{}}, "", false},
		{"pending", record.ResultsUpdated, "ehr", states{of: map[string]string{"msg_a": store.Pending}}, ClassUpdatedUnconfirmed, false},
		{"store down", record.ResultsUpdated, "ehr", states{err: store.ErrUnavailable}, ClassUpdatedUnconfirmed, false},
		{"names none for this destination", record.ResultsUpdated, "lab", states{err: errors.New("not asked")}, "", false},
		{"a sensitive delivery", record.Sensitive, "ehr", states{err: errors.New("not asked")}, "", false},
	}
	for _, tt := range tests {
		r := &runner{outbox: tt.states, hard: context.Background(), log: slog.New(slog.DiscardHandler)}
		c := &store.Claimed{Delivery: store.Delivery{DataType: tt.dt, Destination: tt.dest}, Payload: snap, Snapshot: true}
		res, ok := r.updatedArrived(c)
		if ok != (tt.class == "") || res.ErrorClass != tt.class || res.Permanent != tt.permanent {
			t.Errorf("%s: %+v, %v; want class %q, permanent %v", tt.name, res, ok, tt.class, tt.permanent)
		}
	}
}
