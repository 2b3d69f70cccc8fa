package operator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver/notify"
	"github.com/pads-dev/pads/internal/store"
)

// The audit log's action names of destinations.
const (
	ActionTestSend = "destinations.test"
	// ActionTestResult records a test send's answer, apart from real
	// deliveries: test sends are not deliveries and are never retried.
	ActionTestResult = "destinations.test_result"
)

// TestResult is what a destination answered to a test send.
type TestResult struct {
	MessageID  string
	StatusCode int    // 0: no HTTP answer (SNS publishes report 200)
	ErrorClass string // "": a 2xx or a successful publish
	Response   []byte // the first 1 KiB of the answer
	Duration   time.Duration
}

// OK reports whether the destination took the test event.
func (r TestResult) OK() bool { return r.ErrorClass == "" }

// Tester sends a test event to a destination of the config in force.
// Errors: ErrNoDestination.
type Tester func(ctx context.Context, ref store.DestinationRef) (TestResult, error)

// ErrNoDestination: the config has no destination of that client and id.
var ErrNoDestination = errors.New("no such destination in the config")

// WithTester returns the service with t for TestSend.
func (s *Service) WithTester(t Tester) *Service {
	s.tester = t
	return s
}

// ParseDestination reads "CLIENT/DESTINATION". Errors: *InvalidError.
func ParseDestination(s string) (store.DestinationRef, error) {
	client, id, ok := strings.Cut(s, "/")
	if !ok || client == "" || id == "" || len(client) > maxID || len(id) > maxID || strings.Contains(id, "/") {
		return store.DestinationRef{}, invalid("name the destination as CLIENT/DESTINATION (its id), e.g. acme/main-hook")
	}
	return store.DestinationRef{ClientID: client, ID: id}, nil
}

func destinationTarget(ref store.DestinationRef) string {
	return "destination:" + ref.ClientID + "/" + ref.ID
}

// TestSend sends a test event to the destination, signed and
// authenticated exactly as its deliveries, and returns its answer. The
// send is audited before it goes, and its answer after (never a body).
// Errors: ErrNoDestination.
func (s *Service) TestSend(ctx context.Context, actor string, ref store.DestinationRef) (TestResult, error) {
	if s.tester == nil {
		return TestResult{}, errors.New("test sends are not available here")
	}
	if err := s.audit(ctx, actor, ActionTestSend, destinationTarget(ref)); err != nil {
		return TestResult{}, err
	}
	res, err := s.tester(ctx, ref)
	if err != nil {
		return TestResult{}, err
	}
	outcome := "ok"
	if !res.OK() {
		outcome = "failed " + res.ErrorClass
	}
	target := fmt.Sprintf("%s %s status=%d message=%s", destinationTarget(ref), outcome, res.StatusCode, res.MessageID)
	if err := s.audit(context.WithoutCancel(ctx), actor, ActionTestResult, target); err != nil {
		return res, err
	}
	return res, nil
}

// The audit log's action names of pauses.
const (
	ActionDestinations = "destinations.list"
	ActionPause        = "destinations.pause"
	ActionResume       = "destinations.resume"
)

// maxReason bounds a pause's reason: a line for people, never data.
const maxReason = 200

// WithConfig returns the service with the config in force, whose
// destinations it lists, pauses and resumes.
func (s *Service) WithConfig(cfg func() *config.Config) *Service {
	s.config = cfg
	return s
}

// WithEvents returns the service with publish, told the operator events
// of its actions (a destination paused or resumed).
func (s *Service) WithEvents(publish func(notify.Event)) *Service {
	s.events = publish
	return s
}

// DestinationState is a destination of the config and whether it is
// paused.
type DestinationState struct {
	store.DestinationRef
	Config *config.Destination
	// Pause is set while the destination is paused.
	Pause *store.Pause
}

// Destinations lists the config's destinations, each with its pause, and
// the pauses of destinations no longer in the config.
func (s *Service) Destinations(ctx context.Context, actor string) ([]DestinationState, error) {
	if err := s.audit(ctx, actor, ActionDestinations, ""); err != nil {
		return nil, err
	}
	return s.destinationStates(ctx)
}

func (s *Service) destinationStates(ctx context.Context) ([]DestinationState, error) {
	pauses, err := s.store.PausedDestinations(ctx)
	if err != nil {
		return nil, err
	}
	byRef := map[store.DestinationRef]*store.Pause{}
	for i := range pauses {
		byRef[pauses[i].DestinationRef] = &pauses[i]
	}
	var out []DestinationState
	if s.config != nil {
		cfg := s.config()
		for i := range cfg.Clients {
			cl := &cfg.Clients[i]
			for j := range cl.Destinations {
				ref := store.DestinationRef{ClientID: cl.ID, ID: cl.Destinations[j].ID}
				out = append(out, DestinationState{DestinationRef: ref, Config: &cl.Destinations[j], Pause: byRef[ref]})
				delete(byRef, ref)
			}
		}
	}
	for _, p := range pauses {
		if byRef[p.DestinationRef] != nil {
			out = append(out, DestinationState{DestinationRef: p.DestinationRef, Pause: byRef[p.DestinationRef]})
		}
	}
	return out, nil
}

// PauseDestination pauses a destination of the config: it is sent
// nothing, and its deliveries wait, pending, until it is resumed. Every
// process honours it within deliver.PauseRefresh (an attempt already in
// flight may finish). It reports whether the destination was running.
// Errors: ErrNoDestination, *InvalidError.
func (s *Service) PauseDestination(ctx context.Context, actor string, ref store.DestinationRef, reason string) (bool, error) {
	reason = strings.TrimSpace(reason)
	if len(reason) > maxReason || strings.ContainsFunc(reason, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return false, invalid("a reason is one line of at most %d characters", maxReason)
	}
	if err := s.known(ref); err != nil {
		return false, err
	}
	target := destinationTarget(ref)
	if reason != "" {
		target += " reason=" + strconv.Quote(reason)
	}
	if err := s.audit(ctx, actor, ActionPause, target); err != nil {
		return false, err
	}
	changed, err := s.store.PauseDestination(ctx, store.Pause{DestinationRef: ref, At: s.now().UTC(), Reason: reason, By: actor})
	if err == nil && changed {
		s.publish(notify.Event{Type: notify.DestinationPaused, Timestamp: s.now().UTC(),
			Data: notify.Data{Client: ref.ClientID, Destination: ref.ID, Reason: reason, By: actor}})
	}
	return changed, err
}

// ResumeDestination resumes a paused destination: its deliveries go, in
// order, within deliver.PauseRefresh. It reports whether it was paused.
// A destination no longer in the config may be resumed too. Errors:
// *InvalidError.
func (s *Service) ResumeDestination(ctx context.Context, actor string, ref store.DestinationRef) (bool, error) {
	if err := s.audit(ctx, actor, ActionResume, destinationTarget(ref)); err != nil {
		return false, err
	}
	changed, err := s.store.ResumeDestination(ctx, ref)
	if err == nil && changed {
		s.publish(notify.Event{Type: notify.DestinationResumed, Timestamp: s.now().UTC(),
			Data: notify.Data{Client: ref.ClientID, Destination: ref.ID, By: actor}})
		if s.wake != nil {
			s.wake()
		}
	}
	return changed, err
}

// known checks that the config in force has the destination.
func (s *Service) known(ref store.DestinationRef) error {
	if s.config == nil {
		return nil
	}
	if d := s.config().Destination(ref.ClientID, ref.ID); d == nil || d.ID != ref.ID {
		return ErrNoDestination
	}
	return nil
}

func (s *Service) publish(e notify.Event) {
	if s.events != nil {
		s.events(e)
	}
}
