package main

import (
	"context"
	"time"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
)

// destinationTester sends test events through the senders of deliveries
// to the destinations in force, so a test is signed and authenticated
// exactly as a delivery would be.
func destinationTester(dests *deliver.Destinations, senders map[string]deliver.Sender) operator.Tester {
	return func(ctx context.Context, ref store.DestinationRef) (operator.TestResult, error) {
		d, ok := dests.Resolve(ref)
		if !ok || d.Ref != ref { // a legacy key is not a destination's name
			return operator.TestResult{}, operator.ErrNoDestination
		}
		sender, ok := senders[d.Type]
		if !ok {
			return operator.TestResult{ErrorClass: deliver.ClassUnknownType}, nil
		}
		start := time.Now()
		res, id := deliver.SendTest(ctx, sender, d, start)
		return operator.TestResult{MessageID: id, StatusCode: res.StatusCode, ErrorClass: res.ErrorClass,
			Response: res.Response, Duration: time.Since(start)}, nil
	}
}
