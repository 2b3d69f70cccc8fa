package store

import (
	"context"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// Outbox is the delivery side of a store: the deliveries that saves
// enqueue, their leases, attempts and replays. Every method is safe to call
// from several processes sharing one database.
type Outbox interface {
	// Claim leases up to req.Limit due deliveries to req.Owner until
	// req.LeaseUntil and returns them with their payloads. A delivery whose
	// lease ran out (its claimer crashed) is due again.
	Claim(ctx context.Context, req ClaimRequest) ([]Claimed, error)
	// Finish records one attempt and the delivery's new state. The state
	// changes only while the attempt's owner still holds the lease; the
	// attempt is recorded either way.
	Finish(ctx context.Context, f Finished) error
	// Held returns those of ids whose lease owner still holds and that
	// are still pending: not once a delivery was erased with its patient
	// (or its lease taken over). The dispatcher asks just before attempts
	// start, so that no attempt starts after an erasure returned, even in
	// a process that had claimed the delivery.
	Held(ctx context.Context, owner string, ids []int64) ([]int64, error)
	// Release drops owner's leases on ids that were claimed but not tried,
	// so they are due at once (a graceful shutdown).
	Release(ctx context.Context, owner string, ids []int64) error
	// HoldOwner marks owner as alive, for as long as the process lives or
	// until Release: leases of an owner nobody holds are taken over (see
	// TakeOver). Lost reports a hold that broke (the database went away):
	// the owner may then be taken over, and the process should claim under
	// a new one.
	HoldOwner(ctx context.Context, owner string) (OwnerHold, error)
	// TakeOver drops the leases of every owner that is not alive (a process
	// that died), so their deliveries are due at once, and returns how many
	// it dropped. self is the caller's own owner, never taken over. The
	// leases of a live owner, however slow its attempts, are left alone.
	TakeOver(ctx context.Context, self string) (int, error)
	// NextDue returns the earliest due time after after among pending
	// deliveries (a scheduled retry); ok is false when there is none.
	// Deliveries already due are not its concern: claims find them.
	NextDue(ctx context.Context, after time.Time) (at time.Time, ok bool, err error)
	// Deliveries lists deliveries, newest first.
	Deliveries(ctx context.Context, f DeliveryFilter) ([]Delivery, error)
	// Delivery returns one delivery and its attempts, oldest first.
	// Errors: ErrNotFound.
	Delivery(ctx context.Context, id int64) (Delivery, []Attempt, error)
	// Replay makes failed (or, by id, any finished) deliveries pending
	// again as a new attempt series with the same message id, and returns
	// how many it changed.
	// Deliveries whose event lost its body to retention are not replayed:
	// by id, that is ErrBodyGone.
	Replay(ctx context.Context, r ReplayRequest) (int, error)
	// OutboxStats counts what is waiting, at now.
	OutboxStats(ctx context.Context, now time.Time) (OutboxStats, error)
	// MessageState returns the state of the delivery of message id (its
	// webhook-id): what a results-updated attempt asks of the delivery
	// it updates. Errors: ErrNotFound (no such delivery, or erased).
	MessageState(ctx context.Context, messageID string) (string, error)
}

// OwnerHold is a live owner's hold (see Outbox.HoldOwner): on PostgreSQL,
// a session advisory lock on its own connection; on SQLite, nothing, as
// the process holds the whole database.
type OwnerHold interface {
	// Lost reports whether the hold broke.
	Lost(ctx context.Context) bool
	// Release ends the hold: the owner is no longer alive.
	Release()
}

// Delivery states.
const (
	Pending   = "pending"
	Delivered = "delivered"
	Failed    = "failed"
)

// Delivery is one payload for one destination.
type Delivery struct {
	ID int64
	// MessageID is the webhook-id: the same on every attempt and replay.
	MessageID   string
	EventID     int64
	Key         record.Key
	FunnelID    string
	Destination string // the destination's id, unique within its client
	DataType    record.DataType
	Model       string // the scoring model that made the payload
	State       string
	Series      int // 1, then one more per replay
	Attempts    int // attempts in the current series
	NextAt      time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	LastError   string // the error class of the last failed attempt
}

// Ref names the delivery's destination.
func (d *Delivery) Ref() DestinationRef {
	return DestinationRef{ClientID: d.Key.ClientID, ID: d.Destination}
}

// DestinationRef names a destination: its id is unique within its client.
type DestinationRef struct {
	ClientID string
	ID       string
}

// Claimed is a leased delivery with its payload.
type Claimed struct {
	Delivery
	// Payload is the JSON body, as snapshotted when the event was raised.
	Payload []byte
	// FHIR is the event's FHIR R4 Bundle, snapshotted with Payload; nil
	// for an event raised before pads made Bundles.
	FHIR []byte
	// Snapshot: Payload is not a body to send but the event's
	// format-neutral snapshot (NewEvent.Snapshot), from which each attempt
	// builds the body of its destination's current format; FHIR is nil.
	Snapshot bool
	// Unreadable: the payload does not open with the keys in force (its
	// key was retired before the event was resealed). Payload and FHIR are
	// nil; the delivery cannot be sent.
	Unreadable bool
	// DueAt is when the delivery became due: the claim moved NextAt to
	// its lease's end. Zero if the store does not know.
	DueAt time.Time
}

// ClaimRequest asks for due deliveries.
type ClaimRequest struct {
	Owner      string
	Now        time.Time
	LeaseUntil time.Time
	Limit      int
	// Skip lists destinations not to claim for (they are busy).
	Skip []DestinationRef
	// Unordered lists destinations whose deliveries go out in any order.
	// To every other one, a record's deliveries go in the order their
	// events were raised: one waits while an earlier one of its record to
	// the same destination is pending (its retries included).
	Unordered []DestinationRef
	// Room caps what one destination may get of the claim: one listed in
	// Room at most its N, any other at most OtherRoom (0: no cap). A claim
	// then reaches every destination with room, in due order, instead of
	// giving its limit to the first ones for their lines to release what
	// does not fit.
	Room      []DestinationRoom
	OtherRoom int
}

// DestinationRoom is how many deliveries a destination may take.
type DestinationRoom struct {
	DestinationRef
	N int
}

// ByDestination reports whether the claim skips or caps destinations:
// the stores then claim destination by destination, rather than walking
// the due deliveries of all of them in order.
func (r *ClaimRequest) ByDestination() bool {
	if len(r.Skip) > 0 || r.OtherRoom > 0 && r.OtherRoom < r.Limit {
		return true
	}
	for _, room := range r.Room {
		if room.N < r.Limit {
			return true
		}
	}
	return false
}

// RoomFor is how many deliveries destination ref may get of the claim.
func (r *ClaimRequest) RoomFor(ref DestinationRef) int {
	for _, room := range r.Room {
		if room.DestinationRef == ref {
			return room.N
		}
	}
	if r.OtherRoom > 0 {
		return r.OtherRoom
	}
	return r.Limit
}

// Attempt is one try of a delivery.
type Attempt struct {
	DeliveryID int64
	MessageID  string
	Series     int
	Number     int
	Owner      string // the process that made it
	StartedAt  time.Time
	Duration   time.Duration
	StatusCode int    // 0: no HTTP answer
	ErrorClass string // "": success
	// Response holds the first 1 KiB of the answer's body (stored sealed).
	Response []byte
}

// Finished is an attempt and what it made of its delivery.
type Finished struct {
	Attempt
	State  string    // Delivered, Pending (retry at NextAt) or Failed
	NextAt time.Time // for Pending
}

// DeliveryFilter selects deliveries; zero fields select all.
type DeliveryFilter struct {
	State    string
	ClientID string
	Limit    int
}

// ReplayRequest selects deliveries to replay: one by ID, or every failed
// one updated since Since (of ClientID, when given, and of its destination
// Destination, when given).
type ReplayRequest struct {
	ID          int64
	Since       time.Time
	ClientID    string
	Destination string // only with ClientID
	Now         time.Time
}

// OutboxStats is the state of the queue.
type OutboxStats struct {
	Pending int
	Failed  int
	// OldestDue is how long the oldest due pending delivery has waited.
	OldestDue time.Duration
}
