package sqlstore

import (
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// Prepared is a commit made ready to write: the sealed row, and the
// events and deliveries it adds, whose ids the writes fill in. Both
// drivers write it on their writer loop, SQLite one statement at a time,
// PostgreSQL a whole batch of commits per round trip.
type Prepared struct {
	Commit store.Commit
	// Indexes are the email's blind indexes, for a commit whose lookup is
	// by email (it first checks the email still finds Commit.Previous).
	Indexes [][]byte
	Row     Row
	// Reindex: the update rewrites the email's index: an index entry left
	// as it was is an index page the database does not rewrite, and most
	// updates keep their email.
	Reindex bool
	Events  []PreparedEvent
}

// PreparedEvent is an event of a commit with its sealed payload and FHIR
// Bundle, and its deliveries.
type PreparedEvent struct {
	Event      store.Event
	Sealed     []byte
	SealedFHIR []byte // nil when the event has no Bundle
	// Snapshot: Sealed is the event's format-neutral snapshot
	// (store.NewEvent.Snapshot), sealed apart from a payload.
	Snapshot   bool
	Deliveries []store.Delivery
}

// Prepare seals c's record and payloads and lays out its events and
// deliveries, without touching the database.
func Prepare(codec Codec, c store.Commit) (*Prepared, error) {
	row, err := codec.sealRecord(c.Record)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Commit: c, Row: row}
	if c.Lookup.PatientUUID == "" {
		p.Indexes = codec.EmailIndexes(c.Lookup.ClientID, c.Lookup.Email)
	}
	if c.Previous != nil {
		// The email's index is rewritten when the email changed, or when
		// the record was sealed with an older key (so was its index).
		p.Reindex = emailOf(c.Previous.Fields) != emailOf(c.Record.Fields) || c.Previous.SealedWith != codec.Keys.PrimaryID() ||
			c.Previous.StaleIndex
	}
	for _, ne := range c.Events {
		e := store.Event{Key: c.Record.Key, FunnelID: c.Record.FunnelID, DataType: ne.DataType, Model: ne.Model, CreatedAt: c.Record.UpdatedAt}
		pe := PreparedEvent{Event: e, Sealed: codec.sealBody(e.Key, e.DataType, ne.Payload, ne.Snapshot),
			SealedFHIR: codec.sealFHIR(e.Key, e.DataType, ne.FHIR), Snapshot: ne.Snapshot}
		dests := c.Destinations
		if ne.Destinations != nil {
			dests = ne.Destinations
		}
		for _, dest := range dests {
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

func emailOf(f record.Fields) string {
	if f.Email == nil {
		return ""
	}
	return record.NormalizeEmail(*f.Email)
}
