package save

import (
	"context"
	"fmt"
	"slices"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
	"github.com/pads-dev/pads/internal/store"
)

// update is the results-updated event of a save that leaves rec, or nil,
// and whether it brings a new red flag. A save raises one when it changes
// the results (any score, category, flag or withheld reason) of a record
// whose results were sent before: its sensitive event (or an earlier
// update) has a delivery, in any state (docs/delivery.md#results-updated).
// It is raised, and kept, even when no destination takes it, so the
// operator's metric and the record's history see it.
//
// It goes to each destination of candidates that lists results-updated
// and has a delivery of the record's results, naming the latest one: the
// message it replaces. To a destination ordered per record that one goes
// first, whatever its state now; the attempt sends the update only once
// it is delivered (deliver: updated_message_undelivered otherwise), so an
// update never names a message its destination did not get. A destination
// with ordering none is named only a delivered message.
//
// What it costs a save: nothing for a record whose assessment was not
// completed before this save (or a client without full results); the
// model run twice more, in memory, for a later save of a completed one;
// and one indexed read only when those results differ.
func (s *Service) update(ctx context.Context, client *config.Client, prev *store.Stored, rec record.Record,
	candidates []*config.Destination) (*store.NewEvent, bool, error) {
	if prev == nil || prev.AssessmentCompletedAt.IsZero() || !client.Full() {
		return nil, false, nil
	}
	// Results are dated at the assessment's completion, which never
	// moves: the time given does not change them.
	before, after := payload.Results(prev.Record, rec.UpdatedAt), payload.Results(rec, rec.UpdatedAt)
	if before.Equal(after) {
		return nil, false, nil
	}
	latest, err := s.d.Store.LatestResults(ctx, rec.Key)
	if err != nil || len(latest) == 0 {
		return nil, false, err
	}
	to, updates := []string{}, map[string]string{}
	for _, d := range candidates {
		last, ok := latest[d.ID]
		if !ok || !d.Gets(config.EventResultsUpdated) || d.Ordering == config.OrderingNone && last.State != store.Delivered {
			continue
		}
		to, updates[d.ID] = append(to, d.ID), last.MessageID
	}
	snap, model, err := s.d.Snapshot(record.ResultsUpdated, rec, updates)
	if err != nil {
		return nil, false, fmt.Errorf("snapshot %s event: %w", record.ResultsUpdated, err)
	}
	return &store.NewEvent{DataType: record.ResultsUpdated, Model: model, Payload: snap, Snapshot: true, Destinations: to},
		newRedFlag(before, after), nil
}

// newRedFlag reports whether after has a red flag (a severe one) that
// before did not have.
func newRedFlag(before, after score.Result) bool {
	for _, f := range after.Flags {
		if f.Severity == score.Severe && !slices.ContainsFunc(before.Flags, func(b score.Flag) bool { return b.ID == f.ID }) {
			return true
		}
	}
	return false
}
