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

// Prepared is a commit made ready to write: the sealed row, and the
// events and deliveries it adds, whose ids the writes fill in. Both
// drivers write it, SQLite one statement at a time (Commit), PostgreSQL a
// whole batch of commits per round trip.
type Prepared struct {
	Commit store.Commit
	// Indexes are the email's blind indexes, for a commit whose lookup is
	// by email (it first checks the email still finds Commit.Previous).
	Indexes [][]byte
	Row     Row
	// Reindex: the update rewrites the email's index (see Tx.Update).
	Reindex bool
	Events  []PreparedEvent
}

// PreparedEvent is an event of a commit with its sealed payload and FHIR
// Bundle, and its deliveries.
type PreparedEvent struct {
	Event      store.Event
	Sealed     []byte
	SealedFHIR []byte // nil when the event has no Bundle
	Deliveries []store.Delivery
}

// Prepare seals c's record and payloads and lays out its events and
// deliveries, without touching the database.
func Prepare(codec Codec, c store.Commit) (*Prepared, error) {
	row, err := codec.SealRecord(c.Record)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Commit: c, Row: row}
	if c.Lookup.PatientUUID == "" {
		p.Indexes = codec.EmailIndexes(c.Lookup.Email)
	}
	if c.Previous != nil {
		// The email's index is rewritten when the email changed, or when
		// the record was sealed with an older key (so was its index).
		p.Reindex = emailOf(c.Previous.Fields) != emailOf(c.Record.Fields) || c.Previous.SealedWith != codec.Keys.PrimaryID()
	}
	for _, ne := range c.Events {
		e := store.Event{Key: c.Record.Key, FunnelID: c.Record.FunnelID, DataType: ne.DataType, Model: ne.Model, CreatedAt: c.Record.UpdatedAt}
		pe := PreparedEvent{Event: e, Sealed: codec.SealPayload(e.Key, e.DataType, ne.Payload),
			SealedFHIR: codec.SealFHIR(e.Key, e.DataType, ne.FHIR)}
		for _, dest := range c.Destinations {
			pe.Deliveries = append(pe.Deliveries, store.Delivery{MessageID: NewMessageID(), Key: e.Key, FunnelID: e.FunnelID,
				Destination: dest, DataType: e.DataType, Model: e.Model, State: store.Pending, Series: 1,
				NextAt: e.CreatedAt, CreatedAt: e.CreatedAt, UpdatedAt: e.CreatedAt})
		}
		p.Events = append(p.Events, pe)
	}
	return p, nil
}

// ByEmail reports whether the commit's lookup is by email, so that it must
// first check, under the email's lock, that the email still finds
// Commit.Previous.
func (p *Prepared) ByEmail() bool { return p.Commit.Lookup.PatientUUID == "" }

// StillFinds reports whether what an email lookup found now is what the
// save read: the same record at the same version, or still none.
func (p *Prepared) StillFinds(key record.Key, version int64, found bool) bool {
	prev := p.Commit.Previous
	return found == (prev != nil) && (!found || key == prev.Key && version == prev.Version)
}

// Committed is what the commit wrote, once every id is filled in.
func (p *Prepared) Committed() store.Committed {
	var out store.Committed
	for _, e := range p.Events {
		out.Events = append(out.Events, e.Event)
		out.Deliveries += len(e.Deliveries)
	}
	return out
}

// Commit writes c through tx, one statement at a time, by the contract of
// store.Records.Commit: it checks first that the lookup still finds what
// c.Previous says, and returns store.ErrConflict, having written nothing,
// when it does not.
func Commit(ctx context.Context, tx Tx, codec Codec, c store.Commit) (store.Committed, error) {
	p, err := Prepare(codec, c)
	if err != nil {
		return store.Committed{}, err
	}
	if p.ByEmail() {
		// A save by email changes the record the email finds: the newest,
		// which another save may have created or updated meanwhile.
		key, version, found, err := tx.ByEmail(ctx, c.Lookup.ClientID, c.Lookup.AssessmentType, p.Indexes)
		if err != nil {
			return store.Committed{}, fmt.Errorf("find record by email: %w", err)
		}
		if !p.StillFinds(key, version, found) {
			return store.Committed{}, store.ErrConflict
		}
	}
	var id int64
	if c.Previous == nil {
		id, err = tx.Insert(ctx, &p.Row)
	} else {
		id, err = tx.Update(ctx, &p.Row, c.Previous.Version, p.Reindex)
	}
	if err != nil {
		return store.Committed{}, fmt.Errorf("write record: %w", err)
	}
	if id == 0 {
		return store.Committed{}, store.ErrConflict
	}
	for i := range p.Events {
		e := &p.Events[i]
		if err := tx.InsertEvent(ctx, &e.Event, id, e.Sealed, e.SealedFHIR); err != nil {
			return store.Committed{}, fmt.Errorf("write event: %w", err)
		}
		for j := range e.Deliveries {
			e.Deliveries[j].EventID = e.Event.ID
			if err := tx.InsertDelivery(ctx, &e.Deliveries[j], id); err != nil {
				return store.Committed{}, fmt.Errorf("write delivery: %w", err)
			}
		}
	}
	return p.Committed(), nil
}

func emailOf(f record.Fields) string {
	if f.Email == nil {
		return ""
	}
	return record.NormalizeEmail(*f.Email)
}
