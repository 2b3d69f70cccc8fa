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
// whose assessment was completed before: its results were raised then
// (docs/delivery.md#results-updated). It is raised, and kept, even when
// no destination takes it, so the operator's metric and the record's
// history see it, whatever became of the earlier results' deliveries.
//
// It goes to each destination of candidates that lists results-updated.
// It names the message it replaces: the destination's latest delivery of
// the record's results that did not fail for good. One still on its way
// goes first (per-record order; with ordering none the attempt waits for
// it: deliver's updated_message_unconfirmed), so an update never names a
// message its destination did not get. It names none (null) when there
// is none on record: the earlier results failed for good there, the
// destination came later, or retention removed their deliveries. A red
// flag then still reaches the destination, with the complete results.
//
// What it costs a save: nothing for a record whose assessment was not
// completed before this save (or a client without full results); the
// model run twice more, in memory, for a later save of a completed one;
// and one indexed read only when those results differ.
func (s *Service) update(ctx context.Context, client *config.Client, prev *store.Stored, rec record.Record,
	candidates []*config.Destination) (event *store.NewEvent, redFlag bool, err error) {
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
	if err != nil {
		return nil, false, err
	}
	to, updates := []string{}, map[string]string{}
	for _, d := range candidates {
		if !d.Gets(config.EventResultsUpdated) {
			continue
		}
		to = append(to, d.ID)
		if last, ok := latest[d.ID]; ok {
			updates[d.ID] = last.MessageID
		}
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
