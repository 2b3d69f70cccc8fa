package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/seal"
)

// Row is a record as a driver stores it: identity and timestamps in clear,
// every field sealed.
type Row struct {
	ID                    int64
	Key                   record.Key
	FunnelID              string
	EmailIndex            []byte
	Sealed                []byte
	CreatedAt             time.Time
	UpdatedAt             time.Time
	FormCompletedAt       time.Time // zero: never
	AssessmentCompletedAt time.Time // zero: never
}

// Tx is a driver's row access inside one open transaction.
type Tx interface {
	// ByKey returns the row with the key, if any, locked for update.
	ByKey(ctx context.Context, key record.Key) (Row, bool, error)
	// ByEmail returns the most recently updated row of the client and
	// assessment type whose email index is one of indexes, locked for update.
	ByEmail(ctx context.Context, clientID, assessmentType string, indexes [][]byte) (Row, bool, error)
	// Insert adds a row and sets its ID.
	Insert(ctx context.Context, row *Row) error
	// Update rewrites the row with row.ID. The email index is written only
	// when emailChanged: an index entry left as it was is an index page the
	// database does not rewrite, and most updates keep their email.
	Update(ctx context.Context, row *Row, emailChanged bool) error
	// InsertEvent adds an outbox event with its sealed payload and sets
	// its ID.
	InsertEvent(ctx context.Context, e *Event, recordID int64, payload []byte) error
	// InsertDelivery adds a pending delivery and sets its ID.
	InsertDelivery(ctx context.Context, d *Delivery) error
}

// Saver applies saves inside a driver's transaction.
type Saver struct {
	Keys *seal.Keyring
	Now  func() time.Time
}

// Save applies req by the four create-or-update rules.
func (s *Saver) Save(ctx context.Context, tx Tx, req SaveRequest) (SaveResult, error) {
	email := NormalizeEmail(req.Email)
	row, found, emailIndex, err := s.find(ctx, tx, req, email)
	if err != nil {
		return SaveResult{}, err
	}
	now := s.Now().UTC()
	var rec record.Record
	if found {
		if rec, err = s.Open(row); err != nil {
			return SaveResult{}, err
		}
	} else {
		rec.Fields = make(record.Fields, len(req.Patch)+2)
		id := req.PatientUUID
		if id == "" {
			// Version 7: time-ordered, so records pads names cluster in the
			// key index; any version is valid as a patientUUID.
			id = uuid.Must(uuid.NewV7()).String()
		}
		rec.Key = record.Key{ClientID: req.ClientID, PatientUUID: id, AssessmentType: req.AssessmentType}
		rec.CreatedAt = now
	}
	rec.Fields.Apply(req.Patch)
	// The key fields are the record's identity, not the caller's to change.
	rec.Fields[record.FieldPatientUUID] = rec.PatientUUID
	rec.Fields[record.FieldAssessmentType] = rec.AssessmentType
	rec.FunnelID = req.FunnelID
	rec.UpdatedAt = now
	triggers := rec.Advance(now)

	stored := row
	row = s.seal(row.ID, rec, emailIndex)
	if found {
		err = tx.Update(ctx, &row, emailMoved(stored, row))
	} else {
		err = tx.Insert(ctx, &row)
	}
	if err != nil {
		return SaveResult{}, fmt.Errorf("write record: %w", err)
	}
	res := SaveResult{PatientUUID: rec.PatientUUID, Created: !found, Triggers: triggers}
	if err := s.events(ctx, tx, &res, rec, row.ID, req); err != nil {
		return SaveResult{}, err
	}
	return res, nil
}

// find looks the record up by the save's key, or by its normalized email.
// It also returns the email's blind index under the first key, which the
// row stores: an email lookup has computed it already.
func (s *Saver) find(ctx context.Context, tx Tx, req SaveRequest, email string) (row Row, found bool, emailIndex []byte, err error) {
	if req.PatientUUID != "" {
		row, found, err = tx.ByKey(ctx, record.Key{ClientID: req.ClientID, PatientUUID: req.PatientUUID, AssessmentType: req.AssessmentType})
		emailIndex = s.Keys.Index(email)
	} else {
		indexes := s.Keys.Indexes(email) // the first key's first
		row, found, err = tx.ByEmail(ctx, req.ClientID, req.AssessmentType, indexes)
		emailIndex = indexes[0]
	}
	if err != nil {
		return Row{}, false, nil, fmt.Errorf("find record: %w", err)
	}
	return row, found, emailIndex, nil
}

// events records the events the save's triggers raise, each with a sealed
// snapshot of its payload, and enqueues one delivery per destination.
func (s *Saver) events(ctx context.Context, tx Tx, res *SaveResult, rec record.Record, recordID int64, req SaveRequest) error {
	var raise []record.DataType
	if res.Triggers.FormCompleted {
		raise = append(raise, record.NonSensitive)
	}
	if res.Triggers.AssessmentCompleted && req.FullSubscription {
		raise = append(raise, record.Sensitive)
	}
	for _, dt := range raise {
		body, err := json.Marshal(payload.For(dt, rec, rec.UpdatedAt))
		if err != nil {
			return fmt.Errorf("encode payload: %w", err)
		}
		e := Event{Key: rec.Key, FunnelID: rec.FunnelID, DataType: dt, CreatedAt: rec.UpdatedAt}
		if err := tx.InsertEvent(ctx, &e, recordID, s.Keys.Seal(body, payloadAD(rec.Key, dt))); err != nil {
			return fmt.Errorf("write event: %w", err)
		}
		res.Events = append(res.Events, e)
		for _, dest := range req.Destinations {
			d := Delivery{MessageID: NewMessageID(), EventID: e.ID, Key: rec.Key, FunnelID: rec.FunnelID,
				Destination: dest, DataType: dt, State: Pending, Series: 1, NextAt: rec.UpdatedAt,
				CreatedAt: rec.UpdatedAt, UpdatedAt: rec.UpdatedAt}
			if err := tx.InsertDelivery(ctx, &d); err != nil {
				return fmt.Errorf("write delivery: %w", err)
			}
			res.Deliveries++
		}
	}
	return nil
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

// payloadAD binds a sealed payload to its record and data type.
func payloadAD(k record.Key, dt record.DataType) []byte {
	return []byte("pads payload v1\x00" + k.ClientID + "\x00" + k.PatientUUID + "\x00" + k.AssessmentType + "\x00" + string(dt))
}

// OpenPayload decrypts a delivery's payload.
func (s *Saver) OpenPayload(d Delivery, sealed []byte) ([]byte, error) {
	body, err := s.Keys.Open(sealed, payloadAD(d.Key, d.DataType))
	if err != nil {
		return nil, fmt.Errorf("open payload of delivery %d: %w", d.ID, err)
	}
	return body, nil
}

// OpenPayloads replaces the sealed payload of each claimed delivery with
// its JSON body.
func (s *Saver) OpenPayloads(claimed []Claimed) error {
	for i := range claimed {
		body, err := s.OpenPayload(claimed[i].Delivery, claimed[i].Payload)
		if err != nil {
			return err
		}
		claimed[i].Payload = body
	}
	return nil
}

// SealResponse seals the start of a destination's answer for the attempt
// log (a client's answer may echo what it was sent).
func (s *Saver) SealResponse(messageID string, body []byte) []byte {
	if len(body) == 0 {
		return nil
	}
	return s.Keys.Seal(body, []byte("pads response v1\x00"+messageID))
}

// OpenResponse decrypts what SealResponse sealed.
func (s *Saver) OpenResponse(messageID string, sealed []byte) []byte {
	if len(sealed) == 0 {
		return nil
	}
	body, err := s.Keys.Open(sealed, []byte("pads response v1\x00"+messageID))
	if err != nil {
		return nil
	}
	return body
}

// NormalizeEmail is the form of an email its blind index is computed over:
// emails match case-insensitively.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// associatedData binds sealed fields to their record: a sealed blob copied
// onto another record's row does not open.
func associatedData(k record.Key) []byte {
	return []byte("pads record v1\x00" + k.ClientID + "\x00" + k.PatientUUID + "\x00" + k.AssessmentType)
}

// seal builds the row of rec, with the email's blind index.
func (s *Saver) seal(id int64, rec record.Record, emailIndex []byte) Row {
	plain := appendFields(make([]byte, 0, 1024), rec.Fields)
	return Row{
		ID:                    id,
		Key:                   rec.Key,
		FunnelID:              rec.FunnelID,
		EmailIndex:            emailIndex,
		Sealed:                s.Keys.Seal(plain, associatedData(rec.Key)),
		CreatedAt:             rec.CreatedAt,
		UpdatedAt:             rec.UpdatedAt,
		FormCompletedAt:       rec.FormCompletedAt,
		AssessmentCompletedAt: rec.AssessmentCompletedAt,
	}
}

// Reseal rewrites row under the first key through tx, if another key
// sealed it, and returns the row as stored and whether it rewrote it. The
// email index is recomputed under the first key too.
func (s *Saver) Reseal(ctx context.Context, tx Tx, row Row) (Row, bool, error) {
	if s.Keys.KeyID(row.Sealed) == s.Keys.PrimaryID() {
		return row, false, nil
	}
	rec, err := s.Open(row)
	if err != nil {
		return row, false, fmt.Errorf("reseal: %w", err)
	}
	email, _ := rec.Fields.String(record.FieldEmail)
	resealed := s.seal(row.ID, rec, s.Keys.Index(NormalizeEmail(email)))
	if err := tx.Update(ctx, &resealed, emailMoved(row, resealed)); err != nil {
		return row, false, fmt.Errorf("reseal record %d: %w", row.ID, err)
	}
	return resealed, true, nil
}

// emailMoved reports whether a rewritten row's email index differs from the
// stored row's, for Tx.Update.
func emailMoved(stored, rewritten Row) bool {
	return !bytes.Equal(stored.EmailIndex, rewritten.EmailIndex)
}

// Open decrypts a row into its record.
func (s *Saver) Open(row Row) (record.Record, error) {
	plain, err := s.Keys.Open(row.Sealed, associatedData(row.Key))
	if err != nil {
		return record.Record{}, fmt.Errorf("open record %d: %w", row.ID, err)
	}
	f, err := decodeFields(plain)
	if err != nil {
		return record.Record{}, fmt.Errorf("decode record %d: %w", row.ID, err)
	}
	if f == nil {
		f = record.Fields{} // a save applies its patch to it in place
	}
	return record.Record{
		Key:                   row.Key,
		FunnelID:              row.FunnelID,
		Fields:                f,
		CreatedAt:             row.CreatedAt,
		UpdatedAt:             row.UpdatedAt,
		FormCompletedAt:       row.FormCompletedAt,
		AssessmentCompletedAt: row.AssessmentCompletedAt,
	}, nil
}
