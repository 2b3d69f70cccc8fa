package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

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
