package store

import (
	"context"
	"time"
)

// Pauses keeps the destinations that are paused: sent nothing, their
// deliveries waiting pending (no attempt used) until they are resumed.
// Every process reads them every few seconds; a pause is durable once
// PauseDestination returns.
type Pauses interface {
	// PauseDestination pauses p's destination and reports whether it was
	// running; a destination paused already keeps its first pause.
	PauseDestination(ctx context.Context, p Pause) (bool, error)
	// ResumeDestination resumes a destination and reports whether it was
	// paused.
	ResumeDestination(ctx context.Context, ref DestinationRef) (bool, error)
	// PausedDestinations returns every paused destination.
	PausedDestinations(ctx context.Context) ([]Pause, error)
}

// Pause is a paused destination: since when, why, and by whom (an
// operator, or "destination" for a 410 Gone).
type Pause struct {
	DestinationRef
	At     time.Time
	Reason string
	By     string
}
