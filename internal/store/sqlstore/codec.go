package sqlstore

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
)

// Row is a record as the drivers store it: identity and timestamps in
// clear, every field sealed, the email only as its blind index.
type Row struct {
	ID                    int64
	Key                   record.Key
	FunnelID              string
	EmailIndex            []byte
	Sealed                []byte
	Version               int64
	CreatedAt             time.Time
	UpdatedAt             time.Time
	FormCompletedAt       time.Time // zero: never
	AssessmentCompletedAt time.Time // zero: never
}

// Codec seals what the drivers store and opens what they read. Every
// sealed value is bound to what it belongs to (its record, its delivery),
// so a sealed blob copied elsewhere does not open.
type Codec struct {
	Keys *seal.Keyring
}

// sealRecord builds the row of rec: its fields encoded with encoding/json
// and sealed, and the blind index of its email under the first key.
func (c Codec) sealRecord(rec record.Record) (Row, error) {
	plain, err := json.Marshal(rec.Fields)
	if err != nil {
		return Row{}, fmt.Errorf("encode record: %w", err)
	}
	email := ""
	if rec.Fields.Email != nil {
		email = *rec.Fields.Email
	}
	return Row{
		Key:                   rec.Key,
		FunnelID:              rec.FunnelID,
		EmailIndex:            c.Keys.Index(emailIndexValue(rec.Key.ClientID, email)),
		Sealed:                c.Keys.Seal(plain, recordAD(rec.Key)),
		CreatedAt:             rec.CreatedAt,
		UpdatedAt:             rec.UpdatedAt,
		FormCompletedAt:       rec.FormCompletedAt,
		AssessmentCompletedAt: rec.AssessmentCompletedAt,
	}, nil
}

// OpenRecord decrypts a row into its record.
func (c Codec) OpenRecord(row Row) (record.Record, error) {
	plain, err := c.Keys.Open(row.Sealed, recordAD(row.Key))
	if err != nil {
		return record.Record{}, fmt.Errorf("open record %d: %w", row.ID, err)
	}
	rec := record.Record{
		Key:                   row.Key,
		FunnelID:              row.FunnelID,
		CreatedAt:             row.CreatedAt,
		UpdatedAt:             row.UpdatedAt,
		FormCompletedAt:       row.FormCompletedAt,
		AssessmentCompletedAt: row.AssessmentCompletedAt,
	}
	if err := json.Unmarshal(plain, &rec.Fields); err != nil {
		return record.Record{}, fmt.Errorf("decode record %d: %w", row.ID, err)
	}
	return rec, nil
}

// Stored opens a row as Find returns it.
func (c Codec) Stored(row Row) (*store.Stored, error) {
	rec, err := c.OpenRecord(row)
	if err != nil {
		return nil, err
	}
	return &store.Stored{Record: rec, Version: row.Version, SealedWith: c.Keys.KeyID(row.Sealed),
		StaleIndex: !c.CurrentEmailIndex(row.EmailIndex, rec.Key.ClientID, emailOf(rec.Fields))}, nil
}

// EmailIndexes are the blind indexes a client's email may be stored
// under: the current form under each key, the first key's first (records
// sealed before a key rotation keep their old index until they are
// resealed), then the legacy form under each key (records indexed before
// indexes were scoped per client, until pads records reseal or their next
// save indexes them again).
func (c Codec) EmailIndexes(clientID, email string) [][]byte {
	return append(c.Keys.Indexes(emailIndexValue(clientID, email)), c.Keys.Indexes(record.LegacyEmail(email))...)
}

// EmailIndexCount is how many indexes EmailIndexes returns.
func (c Codec) EmailIndexCount() int { return 2 * len(c.Keys.Indexes("")) }

// CurrentEmailIndex reports whether index is the current form of the
// client's email's index under the first key.
func (c Codec) CurrentEmailIndex(index []byte, clientID, email string) bool {
	return bytes.Equal(index, c.Keys.Index(emailIndexValue(clientID, email)))
}

// emailIndexValue is what a record's email index is computed over: the
// normalized email, scoped to its client, so the same email of two clients
// has unrelated indexes (nothing links their records in a stolen
// database).
func emailIndexValue(clientID, email string) string {
	return "pads email v2\x00" + clientID + "\x00" + record.NormalizeEmail(email)
}

// recordAD binds sealed fields to their record.
func recordAD(k record.Key) []byte {
	return []byte("pads record v1\x00" + k.ClientID + "\x00" + k.PatientUUID + "\x00" + k.AssessmentType)
}

// payloadAD binds a sealed payload to its record and data type.
func payloadAD(k record.Key, dt record.DataType) []byte {
	return []byte("pads payload v1\x00" + k.ClientID + "\x00" + k.PatientUUID + "\x00" + k.AssessmentType + "\x00" + string(dt))
}

// SealPayload seals an event's payload.
func (c Codec) SealPayload(k record.Key, dt record.DataType, body []byte) []byte {
	return c.Keys.Seal(body, payloadAD(k, dt))
}

// snapshotAD binds a sealed snapshot to its record and data type, apart
// from a payload: a snapshot never opens as a body to send, nor a payload
// as a snapshot.
func snapshotAD(k record.Key, dt record.DataType) []byte {
	return []byte("pads snapshot v1\x00" + k.ClientID + "\x00" + k.PatientUUID + "\x00" + k.AssessmentType + "\x00" + string(dt))
}

// bodyAD is the associated data of an event's payload column: a snapshot's
// or a payload's.
func bodyAD(k record.Key, dt record.DataType, snapshot bool) []byte {
	if snapshot {
		return snapshotAD(k, dt)
	}
	return payloadAD(k, dt)
}

// sealBody seals an event's payload column: its snapshot or its payload.
func (c Codec) sealBody(k record.Key, dt record.DataType, body []byte, snapshot bool) []byte {
	return c.Keys.Seal(body, bodyAD(k, dt, snapshot))
}

// fhirAD binds a sealed FHIR Bundle to its record and data type, apart
// from the payload: one does not open as the other.
func fhirAD(k record.Key, dt record.DataType) []byte {
	return []byte("pads fhir v1\x00" + k.ClientID + "\x00" + k.PatientUUID + "\x00" + k.AssessmentType + "\x00" + string(dt))
}

// sealFHIR seals an event's FHIR Bundle; nil stays nil.
func (c Codec) sealFHIR(k record.Key, dt record.DataType, bundle []byte) []byte {
	if bundle == nil {
		return nil
	}
	return c.Keys.Seal(bundle, fhirAD(k, dt))
}

// OpenPayloads replaces the sealed payload (or snapshot) and FHIR Bundle
// of each claimed delivery with their JSON.
func (c Codec) OpenPayloads(claimed []store.Claimed) {
	for i := range claimed {
		d := &claimed[i]
		body, err := c.Keys.Open(d.Payload, bodyAD(d.Key, d.DataType, d.Snapshot))
		var bundle []byte
		if err == nil && d.FHIR != nil {
			bundle, err = c.Keys.Open(d.FHIR, fhirAD(d.Key, d.DataType))
		}
		if err != nil {
			// One delivery that cannot be opened is that delivery's failure,
			// not the claim's: the others go out.
			d.Payload, d.FHIR, d.Unreadable = nil, nil, true
			continue
		}
		d.Payload, d.FHIR = body, bundle
	}
}

// SealResponse seals the start of a destination's answer for the attempt
// log (a client's answer may echo what it was sent).
func (c Codec) SealResponse(messageID string, body []byte) []byte {
	if len(body) == 0 {
		return nil
	}
	return c.Keys.Seal(body, responseAD(messageID))
}

// responseAD binds a sealed answer to its delivery's message id.
func responseAD(messageID string) []byte { return []byte("pads response v1\x00" + messageID) }

// openAttempts opens the sealed answers of a delivery's attempts; an
// answer that does not open is shown as none.
func (c Codec) openAttempts(d store.Delivery, attempts []store.Attempt) {
	for i := range attempts {
		a := &attempts[i]
		a.DeliveryID, a.MessageID = d.ID, d.MessageID
		if len(a.Response) == 0 {
			continue
		}
		body, err := c.Keys.Open(a.Response, responseAD(d.MessageID))
		if err != nil {
			body = nil
		}
		a.Response = body
	}
}

// NewMessageID returns a fresh delivery message id: "msg_" and 32 hex
// digits, the first 12 the Unix milliseconds and the rest random. Ids made
// later sort later, so the database's index of them grows at one end.
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
