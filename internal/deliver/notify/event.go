package notify

import (
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// The types of operator events.
const (
	DestinationFailing   = "destination.failing"
	DestinationRecovered = "destination.recovered"
	DeliveryFailed       = "delivery.failed"
	DestinationPaused    = "destination.paused"
	DestinationResumed   = "destination.resumed"
)

// Event is one operator event; its JSON is the body an operator endpoint
// receives.
type Event struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      Data      `json:"data"`
}

// Data is what an event is about: ids and counts, never patient data.
// Fields that do not apply to the event's type are left out.
type Data struct {
	Client      string `json:"client"`
	Destination string `json:"destination"`
	// ConsecutiveFailures counts the attempts in a row that failed:
	// for destination.failing, the threshold reached; for
	// destination.recovered, the run of failures that ended.
	ConsecutiveFailures int `json:"consecutiveFailures,omitempty"`
	// ErrorClass and StatusCode describe the last failed attempt.
	ErrorClass string `json:"errorClass,omitempty"`
	StatusCode int    `json:"statusCode,omitempty"`
	// DeliveryID and MessageID name the delivery that failed for good
	// (delivery.failed).
	DeliveryID int64  `json:"deliveryId,omitempty"`
	MessageID  string `json:"messageId,omitempty"`
	DataType   string `json:"dataType,omitempty"`
	// FailedForGood counts the deliveries of the destination that failed
	// for good since the last delivery.failed event (this one included):
	// the event is sent at most once per destination per hour.
	FailedForGood int `json:"failedForGood,omitempty"`
	// Reason and By say why and by whom a destination was paused or
	// resumed ("410 Gone" when the destination asked for it).
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"`
}

// Outcome is what one delivery attempt came to, as Tracker needs it.
type Outcome struct {
	Destination store.DestinationRef
	OK          bool
	ErrorClass  string
	StatusCode  int
	// FailedForGood: the attempt was the delivery's last; it is failed.
	FailedForGood bool
	DeliveryID    int64
	MessageID     string
	DataType      string
}
