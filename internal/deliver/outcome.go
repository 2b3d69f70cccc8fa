package deliver

import (
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// tried is what one attempt of a delivery came to, with what the outcome
// needs to know of the delivery: which try it was and when it was made.
type tried struct {
	Result
	Number  int       // 1-based, within the current series
	Created time.Time // when the delivery was made (its event raised)
}

// verdict is what an attempt makes of its delivery: its new state, when
// it is tried again (Pending), and the metrics' label.
type verdict struct {
	State  string    // store.Delivered, store.Pending or store.Failed
	NextAt time.Time // for store.Pending
	Label  string    // "delivered", "retry", "failed", "paused" or "waiting"
}

// updateWait is how long a results-updated delivery waits before it
// looks again whether the message it names was delivered.
const updateWait = 5 * time.Second

// removedGrace is how long a delivery whose destination this process's
// config does not know stays pending, looked at again every minute, before
// it fails.
const removedGrace = time.Hour

// outcome decides what follows an attempt that ended at now, by the
// destination's retry policy p. It is pure: every rule of "delivered,
// retry at, or failed for good" lives here, and a new one is a case of
// its switch (with a row in outcome_test.go).
func outcome(t tried, p Policy, now time.Time) verdict {
	switch {
	case t.ErrorClass == "":
		return verdict{State: store.Delivered, Label: "delivered"}
	case t.ErrorClass == ClassGone:
		// The destination is paused by this answer: the delivery waits
		// with the others, and goes when an operator resumes it, whatever
		// tries it had left. (A second on: no claim may return it while
		// this attempt is still winding up.)
		return verdict{State: store.Pending, NextAt: now.Add(time.Second), Label: "paused"}
	case t.ErrorClass == ClassUpdatedUnconfirmed:
		// An update whose earlier results are still on their way (a
		// destination with ordering none): it waits for them, as long as
		// they take, and spends none of its tries, so it is never failed
		// for good unsent while they retry.
		return verdict{State: store.Pending, NextAt: now.Add(updateWait), Label: "waiting"}
	case t.ErrorClass == ClassDestinationRemoved && now.Sub(t.Created) < removedGrace:
		// This process's config lacks the destination: it may be one a
		// reload on another process has just added, or a typo about to be
		// fixed. Look again in a minute; fail only after the grace.
		return verdict{State: store.Pending, NextAt: now.Add(time.Minute), Label: "retry"}
	case t.Permanent:
		return verdict{State: store.Failed, Label: "failed"}
	}
	at, final := p.Next(t.Number, now, t.RetryAfter)
	if final {
		return verdict{State: store.Failed, Label: "failed"}
	}
	return verdict{State: store.Pending, NextAt: at, Label: "retry"}
}
