package sqlstore

import (
	"context"
	"fmt"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// Tx is a driver's row access inside one open write transaction.
type Tx interface {
	// ByEmail returns the key and version of the client's most recently
	// updated record of the assessment type whose email index is one of
	// indexes; found is false when there is none.
	ByEmail(ctx context.Context, clientID, assessmentType string, indexes [][]byte) (key record.Key, version int64, found bool, err error)
	// Insert adds row with version 1, unless a record with its key
	// exists: then it writes nothing and returns id 0.
	Insert(ctx context.Context, row *Row) (id int64, err error)
	// Update rewrites the record with row's key, provided its version is
	// still version, and moves the version on by one; otherwise it writes
	// nothing and returns id 0. The email index is written only when
	// reindex: an index entry left as it was is an index page the database
	// does not rewrite, and most updates keep their email.
	Update(ctx context.Context, row *Row, version int64, reindex bool) (id int64, err error)
	// InsertEvent adds an outbox event with its sealed payload and sealed
	// FHIR Bundle (nil: none) and sets its ID.
	InsertEvent(ctx context.Context, e *store.Event, recordID int64, sealedPayload, sealedFHIR []byte) error
	// InsertDelivery adds a pending delivery of the record recordID and
	// sets its ID.
	InsertDelivery(ctx context.Context, d *store.Delivery, recordID int64) error
}

// Commit writes c through tx, by the contract of store.Records.Commit: it
// checks first that the lookup still finds what c.Previous says, and
// returns store.ErrConflict, having written nothing, when it does not.
func Commit(ctx context.Context, tx Tx, codec Codec, c store.Commit) (store.Committed, error) {
	if c.Lookup.PatientUUID == "" {
		// A save by email changes the record the email finds: the newest,
		// which another save may have created or updated meanwhile.
		key, version, found, err := tx.ByEmail(ctx, c.Lookup.ClientID, c.Lookup.AssessmentType, codec.EmailIndexes(c.Lookup.Email))
		if err != nil {
			return store.Committed{}, fmt.Errorf("find record by email: %w", err)
		}
		if found != (c.Previous != nil) || found && (key != c.Previous.Key || version != c.Previous.Version) {
			return store.Committed{}, store.ErrConflict
		}
	}
	row, err := codec.SealRecord(c.Record)
	if err != nil {
		return store.Committed{}, err
	}
	var id int64
	if c.Previous == nil {
		id, err = tx.Insert(ctx, &row)
	} else {
		// The email's index is rewritten when the email changed, or when
		// the record was sealed with an older key (so was its index).
		reindex := emailOf(c.Previous.Fields) != emailOf(c.Record.Fields) || c.Previous.SealedWith != codec.Keys.PrimaryID()
		id, err = tx.Update(ctx, &row, c.Previous.Version, reindex)
	}
	if err != nil {
		return store.Committed{}, fmt.Errorf("write record: %w", err)
	}
	if id == 0 {
		return store.Committed{}, store.ErrConflict
	}
	var out store.Committed
	for _, ne := range c.Events {
		e := store.Event{Key: c.Record.Key, FunnelID: c.Record.FunnelID, DataType: ne.DataType, Model: ne.Model, CreatedAt: c.Record.UpdatedAt}
		if err := tx.InsertEvent(ctx, &e, id, codec.SealPayload(e.Key, e.DataType, ne.Payload), codec.SealFHIR(e.Key, e.DataType, ne.FHIR)); err != nil {
			return store.Committed{}, fmt.Errorf("write event: %w", err)
		}
		out.Events = append(out.Events, e)
		for _, dest := range c.Destinations {
			d := store.Delivery{MessageID: NewMessageID(), EventID: e.ID, Key: e.Key, FunnelID: e.FunnelID,
				Destination: dest, DataType: e.DataType, Model: e.Model, State: store.Pending, Series: 1,
				NextAt: e.CreatedAt, CreatedAt: e.CreatedAt, UpdatedAt: e.CreatedAt}
			if err := tx.InsertDelivery(ctx, &d, id); err != nil {
				return store.Committed{}, fmt.Errorf("write delivery: %w", err)
			}
			out.Deliveries++
		}
	}
	return out, nil
}

func emailOf(f record.Fields) string {
	if f.Email == nil {
		return ""
	}
	return record.NormalizeEmail(*f.Email)
}

// Reseal rewrites row through tx under the codec's first key, if another
// key sealed it, and returns the row as stored and whether it rewrote it.
// The email index is recomputed under the first key too.
func Reseal(ctx context.Context, tx Tx, codec Codec, row Row) (Row, bool, error) {
	if codec.Keys.KeyID(row.Sealed) == codec.Keys.PrimaryID() {
		return row, false, nil
	}
	rec, err := codec.OpenRecord(row)
	if err != nil {
		return row, false, fmt.Errorf("reseal: %w", err)
	}
	resealed, err := codec.SealRecord(rec)
	if err != nil {
		return row, false, err
	}
	id, err := tx.Update(ctx, &resealed, row.Version, true)
	if err != nil {
		return row, false, fmt.Errorf("reseal record %d: %w", row.ID, err)
	}
	if id == 0 { // a save rewrote it meanwhile, under the first key
		return row, false, nil
	}
	resealed.ID, resealed.Version = id, row.Version+1
	return resealed, true, nil
}
