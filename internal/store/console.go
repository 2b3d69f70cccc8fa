package store

import (
	"context"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// Console is what the operator console reads: deliveries paged by a
// keyset, the health of each destination, the deliveries of each minute,
// and the audit log paged and filtered. Each method's work is bounded by
// its indexes (migration 10 of each driver), never by a full scan or an
// OFFSET, so a page costs the same at the first row and the 100,000th.
type Console interface {
	// DeliveryPage returns up to q.Limit deliveries matching q, newest
	// first (by CreatedAt, then ID), strictly after q.After when it is set.
	DeliveryPage(ctx context.Context, q DeliveryQuery) ([]Delivery, error)
	// DestinationStats returns the health of every destination of
	// q.Destinations, and of every other destination with a delivery
	// created in the day before q.Now, ordered by client and destination.
	DestinationStats(ctx context.Context, q StatsQuery) ([]DestinationStats, error)
	// Throughput counts the deliveries created in [from, to) by step-long
	// bucket and current state, oldest bucket first; every bucket is there,
	// empty ones included.
	Throughput(ctx context.Context, from, to time.Time, step time.Duration) ([]ThroughputBucket, error)
	// CountReplay counts the deliveries Replay(r) would make pending again
	// now, for a replay by selection (r.ID == 0).
	CountReplay(ctx context.Context, r ReplayRequest) (int, error)
	// AuditPage returns up to q.Limit audit entries matching q, newest
	// first, with ids below q.Before when it is not 0.
	AuditPage(ctx context.Context, q AuditQuery) ([]AuditEntry, error)
}

// DeliveryQuery selects a page of deliveries; zero fields select all.
type DeliveryQuery struct {
	ClientID    string
	Destination string // of ClientID; without it, of any client (ids are unique within a client only)
	State       string
	DataType    record.DataType
	From, To    time.Time // CreatedAt in [From, To); zero: unbounded
	// PatientUUID selects the deliveries of a patient's records (of
	// ClientID, when given), MessageID the delivery of one webhook-id.
	PatientUUID string
	MessageID   string
	// After is the last delivery of the previous page; nil: the first page.
	After *Cursor
	Limit int
}

// Cursor is a position in the newest-first order of deliveries.
type Cursor struct {
	CreatedAt time.Time
	ID        int64
}

// StatsQuery asks for the health of destinations at Now.
type StatsQuery struct {
	Now time.Time
	// Destinations are reported even when they have no delivery.
	Destinations []DestinationRef
	// Samples bounds the attempts returned per destination (Recent).
	Samples int
}

// DestinationStats is the health of one destination.
type DestinationStats struct {
	DestinationRef
	// Hour and Day count the deliveries created in the hour and the day
	// before StatsQuery.Now, by their current state.
	Hour, Day StateCounts
	// OldestPending is when the oldest pending delivery was created; zero
	// when none is pending.
	OldestPending time.Time
	// Recent are the latest attempts of the destination's latest
	// deliveries of the day, newest first, at most StatsQuery.Samples;
	// Response is not filled.
	Recent []Attempt
}

// StateCounts counts deliveries by state.
type StateCounts struct {
	Pending, Delivered, Failed int
}

// Add counts n deliveries in state.
func (c *StateCounts) Add(state string, n int) {
	switch state {
	case Pending:
		c.Pending += n
	case Delivered:
		c.Delivered += n
	case Failed:
		c.Failed += n
	}
}

// ThroughputBucket counts the deliveries created in [Start, Start+step).
type ThroughputBucket struct {
	Start time.Time
	StateCounts
}

// AuditQuery selects a page of the audit log; zero fields select all.
type AuditQuery struct {
	Actor  string
	Action string
	Before int64 // entries with smaller ids; 0: the newest
	Limit  int
}
