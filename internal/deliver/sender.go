package deliver

import (
	"context"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// Message is one attempt's content.
type Message struct {
	ID       string // webhook-id, the same on every attempt
	DataType record.DataType
	// Model is the version of the scoring model that made the payload.
	Model    string
	Attempt  int // 1-based, within the current series
	Key      record.Key
	FunnelID string
	// Format is the Body's format: FormatSeedJSON or FormatFHIR.
	Format    string
	Body      []byte
	Timestamp time.Time
}

// Result is what an attempt came to.
type Result struct {
	StatusCode int    // 0 when no HTTP answer came
	ErrorClass string // "" on success; see docs/delivery.md
	Response   []byte // the first 1 KiB of the answer's body
	RetryAfter time.Duration
	// Permanent marks a failure that retrying cannot mend (the topic does
	// not exist, pads may not publish to it): the delivery fails at once,
	// kept for replay once the destination is fixed.
	Permanent bool
}

// Sender delivers to one type of destination.
type Sender interface {
	Send(ctx context.Context, d *Destination, m Message) Result
}

// Error classes common to every sender.
const (
	ClassDestinationRemoved = "destination_removed"
	ClassUnknownType        = "unknown_destination_type"
	// ClassPayloadUnreadable: the delivery's payload was sealed with an
	// encryption key no longer configured; it fails at once, and can be
	// replayed once the key is back.
	ClassPayloadUnreadable = "payload_unreadable"
	// ClassNoFHIR: the destination's format is fhir-r4, and the event was
	// raised before pads made FHIR Bundles; it has none to send.
	ClassNoFHIR = "fhir_unavailable"
	// ClassUpdatedUndelivered: a results-updated delivery whose earlier
	// message (the one it names as updated) failed for good; it fails at
	// once, unsent, and is replayed with that message.
	ClassUpdatedUndelivered = "updated_message_undelivered"
	// ClassUpdatedUnconfirmed: a results-updated delivery whose earlier
	// message pads could not yet see delivered (still pending, or the
	// database did not answer); unsent, it waits (no try spent).
	ClassUpdatedUnconfirmed = "updated_message_unconfirmed"
)
