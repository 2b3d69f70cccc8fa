package main

import (
	"log/slog"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/notify"
	"github.com/pads-dev/pads/internal/metrics"
)

// watcher is told every recorded attempt (deliver.Options.Reported): it
// counts it by client and destination, and turns it into operator events
// (a destination failing or recovered, a delivery failed for good, a
// destination paused by a 410 Gone).
type watcher struct {
	metrics  *metrics.Metrics
	tracker  *notify.Tracker
	notifier *notify.Notifier
}

func newWatcher(m *metrics.Metrics, live func() *config.Config, sender deliver.Sender, logger *slog.Logger) *watcher {
	return &watcher{
		metrics:  m,
		tracker:  notify.NewTracker(func() int { return live().Destinations.FailingAfter }),
		notifier: notify.New(sender, func() []deliver.Destination { return deliver.OperatorEndpoints(live()) }, logger),
	}
}

// report is the dispatcher's Reported.
func (w *watcher) report(r deliver.Report) {
	d := r.Delivery
	w.metrics.ObserveDestinationAttempt(d.Key.ClientID, d.Destination, r.Outcome, r.Ended.Sub(d.CreatedAt))
	if r.Outcome == "waiting" {
		return // an update waiting for its earlier results: nothing was sent, nothing failed
	}
	events := w.tracker.Observe(notify.Outcome{Destination: d.Ref(), OK: r.Result.ErrorClass == "", ErrorClass: r.Result.ErrorClass,
		StatusCode: r.Result.StatusCode, FailedForGood: r.Outcome == "failed", DeliveryID: d.ID, MessageID: d.MessageID,
		DataType: string(d.DataType)}, r.Ended.UTC())
	if r.Paused {
		events = append(events, notify.Event{Type: notify.DestinationPaused, Timestamp: r.Ended.UTC(),
			Data: notify.Data{Client: d.Key.ClientID, Destination: d.Destination, Reason: deliver.ReasonGone, By: deliver.ByDestination,
				StatusCode: r.Result.StatusCode}})
	}
	w.notifier.Publish(events...)
}

// destinationPairs are the config's (client, destination id) pairs, the
// metrics' labels.
func destinationPairs(cfg *config.Config) [][2]string {
	var out [][2]string
	for _, cl := range cfg.Clients {
		for _, d := range cl.Destinations {
			out = append(out, [2]string{cl.ID, d.ID})
		}
	}
	return out
}

// publishNow sends an operator event of a command that exits right after
// (pads destinations pause), waiting for it to be sent or given up.
func publishNow(cfg *config.Config, logger *slog.Logger) func(notify.Event) {
	return func(e notify.Event) {
		if len(cfg.OperatorEvents) == 0 {
			return
		}
		if cfg.HasStandIn("operatorEvents") {
			logger.Warn("operator event not sent: the operator endpoints' secrets are not in this environment", "type", e.Type)
			return
		}
		n := notify.New(webhookSender(cfg), func() []deliver.Destination { return deliver.OperatorEndpoints(cfg) }, logger)
		n.SetBackoff(func(int) time.Duration { return time.Second })
		n.Send(e)
		n.Stop()
	}
}
