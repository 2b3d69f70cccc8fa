package deliver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// EventTest is the X-<ServiceName>-Event (and, on SNS, the dataType
// attribute) of a test send.
const EventTest record.DataType = "test"

// TestBody is the body of a test send: it names the destination and says
// what it is, and carries no patient data (docs/delivery.md).
type TestBody struct {
	Type        string    `json:"type"` // always "test"
	MessageID   string    `json:"messageId"`
	Client      string    `json:"client"`
	Destination string    `json:"destination"`
	SentAt      time.Time `json:"sentAt"`
	Note        string    `json:"note"`
}

// testNote tells whoever reads a test send what to do with it.
const testNote = "A test event from pads: no patient data. Verify its signature and authentication as for any delivery, and answer 2xx."

// SendTest sends a test event to d through sender, signed and
// authenticated exactly like a delivery, and returns the answer and the
// message id it used. It bounds the attempt by d's timeout.
func SendTest(ctx context.Context, sender Sender, d *Destination, now time.Time) (Result, string) {
	id := NewMessageID()
	body, _ := json.Marshal(TestBody{Type: "test", MessageID: id, Client: d.Ref.ClientID, Destination: d.Ref.ID,
		SentAt: now.UTC(), Note: testNote})
	body = append(body, '\n')
	format := FormatSeedJSON
	m := Message{ID: id, DataType: EventTest, Attempt: 1, Format: format, Body: body, Timestamp: now}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	return sender.Send(ctx, d, m), id
}

// NewMessageID returns a new webhook-id for a message no stored delivery
// names (a test send, an operator event): "msg_" and 32 hex digits, as a
// delivery's, its first 12 the time in milliseconds.
func NewMessageID() string {
	var b [16]byte
	ms := time.Now().UnixMilli()
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	rand.Read(b[6:])
	return "msg_" + hex.EncodeToString(b[:])
}
