package receiver

import (
	"encoding/json"
	"errors"
	"time"
)

// The events of pads (the X-Pads-Event header, the SNS attribute
// dataType).
const (
	EventNonSensitive = "non-sensitive"
	EventSensitive    = "sensitive"
	// EventResultsUpdated is new results of a completed assessment,
	// after a later save changed them (only to destinations that list it
	// in their events), sent after the results it replaces. Its body is
	// a sensitive payload or Bundle, the complete current results;
	// Delivery.Updates names the message it updates ("" when pads had
	// none on record for this destination).
	EventResultsUpdated = "results-updated"
	// EventTest is a test send (pads destinations test, the console's
	// Send test button): no patient data; answer 2xx.
	EventTest = "test"
)

// The two formats of a destination.
const (
	FormatSeedJSON = "seed-json"
	FormatFHIR     = "fhir-r4"
)

// Delivery is one delivery, verified. Exactly one of NonSensitive,
// Sensitive (for a sensitive or a results-updated event), Bundle and Test
// is set; Event and Format say which. They are read
// from the signed body alone, never from headers, which the signature
// does not cover.
type Delivery struct {
	// ID is the webhook-id: the same on every attempt and replay of a
	// delivery, so the key to deduplicate on.
	ID        string
	Timestamp time.Time // this attempt's webhook-timestamp
	// Attempt and Model are the X-Pads-Attempt and X-Pads-Model headers,
	// for logs (not signed).
	Attempt int
	Model   string

	Event  string // EventNonSensitive, EventSensitive or EventResultsUpdated
	Format string // FormatSeedJSON or FormatFHIR
	Body   []byte // exactly as signed
	// Updates, for EventResultsUpdated, is the message id (the ID of an
	// earlier delivery to this destination, sensitive or results-updated)
	// whose results this one replaces: the seed payload's
	// updatesMessageId, the Bundle's updates-message tag. "" when pads
	// names none.
	Updates string

	NonSensitive *NonSensitive
	Sensitive    *Sensitive
	Bundle       *Bundle
	// Test is set instead for a test send (Event EventTest).
	Test *Test
}

// Test is the body of a test send: it names the destination it was sent
// to and carries no patient data.
type Test struct {
	Type        string    `json:"type"` // "test"
	MessageID   string    `json:"messageId"`
	Client      string    `json:"client"`
	Destination string    `json:"destination"`
	SentAt      time.Time `json:"sentAt"`
	Note        string    `json:"note"`
}

// ErrNotPads: a body that is neither of pads' payloads nor a pads FHIR
// Bundle.
var ErrNotPads = errors.New("receiver: not a pads payload")

// Decode reads a delivery's body: a seed payload (its event told by its
// fields) or a FHIR Bundle (its event told by its tag). It is what the
// Handler does after verifying; an SQS consumer calls it on an SNS
// message (docs/receivers/README.md).
func Decode(body []byte) (*Delivery, error) {
	d := &Delivery{Body: body}
	return d, d.decode()
}

func (d *Delivery) decode() error {
	// Which payload it is, by the fields each always has.
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(d.Body, &probe); err != nil {
		return errors.Join(ErrNotPads, err)
	}
	var err error
	switch {
	case probe["resourceType"] != nil:
		d.Format, d.Bundle = FormatFHIR, &Bundle{}
		if err = json.Unmarshal(d.Body, d.Bundle); err == nil && d.Bundle.ResourceType != "Bundle" {
			err = errors.New("not a Bundle")
		}
		if d.Event = d.Bundle.Event(); err == nil && d.Event == "" {
			err = errors.New("the Bundle has no pads event tag")
		}
		d.Updates = d.Bundle.Updates()
	case string(probe["type"]) == `"test"`:
		d.Format, d.Event, d.Test = FormatSeedJSON, EventTest, &Test{}
		err = json.Unmarshal(d.Body, d.Test)
	case probe["healthCreditScore"] != nil:
		d.Format, d.Event, d.Sensitive = FormatSeedJSON, EventSensitive, &Sensitive{}
		err = json.Unmarshal(d.Body, d.Sensitive)
		if u, ok := probe["updatesMessageId"]; ok && err == nil {
			var id *string
			d.Event, err = EventResultsUpdated, json.Unmarshal(u, &id)
			if id != nil {
				d.Updates = *id
			}
		}
	case probe["formCompleted"] != nil:
		d.Format, d.Event, d.NonSensitive = FormatSeedJSON, EventNonSensitive, &NonSensitive{}
		err = json.Unmarshal(d.Body, d.NonSensitive)
	default:
		return ErrNotPads
	}
	if err != nil {
		return errors.Join(ErrNotPads, err)
	}
	return nil
}
