package sqlstore

import (
	"context"
	"hash/maphash"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// Keys answers, before a save reads its record, whether a record of that
// key may be stored: a Bloom filter of every record key, read from the
// database in the background at start and told of each record a commit
// of this process creates. "No" is sure of what this process knows, and
// the save skips the read (a create of a new patient, the load of most
// saves, reads nothing); "maybe" reads as before. It says no wrongly of
// a record created behind this process's back: on PostgreSQL, by another
// pads process since this one started. The record key's unique index
// then refuses the create (a conflict, which writes nothing), the store
// tells the filter of the key, and the save starts over from a read that
// finds the record: once per such key and process. A key erased or
// expired stays in the filter: its saves read and find nothing, as
// before.
//
// Sizing: 10 bits and 7 hashes a key, for twice the highest record id at
// start (2 million at least): 2.5 MiB, 1% of "maybe" wrongly. Past that the
// filter says "maybe" more often and more saves read; the next start
// sizes it again.
type Keys struct {
	seed   maphash.Seed
	bits   []atomic.Uint64
	ready  atomic.Bool   // the records stored at start are all in
	filled chan struct{} // closed once ready
	cancel context.CancelFunc
	done   sync.WaitGroup
}

const (
	keysPerRecord = 10 // bits
	keyHashes     = 7
	minKeys       = 2 << 20
)

// LoadKeys returns a filter sized for the records of db and fills it in
// the background, from db's reads.
func LoadKeys(ctx context.Context, db DB, log *slog.Logger) *Keys {
	var n *int64
	if err := db.QueryRow(ctx, "SELECT max(id) FROM records").Scan(&n); err != nil || n == nil {
		n = new(int64) // empty, or unknown: the least size
	}
	k := NewKeys(max(minKeys, 2*int(*n)))
	ctx, k.cancel = context.WithCancel(context.Background())
	k.done.Go(func() {
		if err := k.fill(ctx, db); err != nil && ctx.Err() == nil {
			// Not ready: every save reads first, as without the filter.
			log.Warn("read the record keys for the save path; saves will read before each write", "err", err)
		}
	})
	return k
}

// NewKeys returns an empty filter for capacity keys, not ready: it says
// maybe of every key until MarkReady.
func NewKeys(capacity int) *Keys {
	words := (capacity*keysPerRecord + 63) / 64
	return &Keys{seed: maphash.MakeSeed(), bits: make([]atomic.Uint64, words), filled: make(chan struct{})}
}

// fill adds every stored record's key, then says the filter is ready. A
// record created meanwhile is added by its commit (before or after the
// scan reaches it: added twice is the same).
func (k *Keys) fill(ctx context.Context, db DB) error {
	rows, err := db.Query(ctx, "SELECT client_id, patient_uuid, assessment_type FROM records")
	if err != nil {
		return err
	}
	defer rows.Close()
	var key record.Key
	for rows.Next() {
		if err := rows.Scan(&key.ClientID, &key.PatientUUID, &key.AssessmentType); err != nil {
			return err
		}
		k.Add(key)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	k.MarkReady()
	return nil
}

// MarkReady says the filter holds every stored record's key: from now on
// its no is sure.
func (k *Keys) MarkReady() {
	if k.ready.CompareAndSwap(false, true) {
		close(k.filled)
	}
}

// Filled is closed once the filter holds every stored record's key.
func (k *Keys) Filled() <-chan struct{} { return k.filled }

// Stop ends the background fill.
func (k *Keys) Stop() {
	if k.cancel != nil {
		k.cancel()
	}
	k.done.Wait()
}

// New reports that the record a save of l would change is surely not
// stored, so that Find need not read: l names a patient uuid whose key
// the filter has not seen.
func (k *Keys) New(l store.Lookup) bool {
	return l.PatientUUID != "" && k.Absent(record.Key{ClientID: l.ClientID, PatientUUID: l.PatientUUID, AssessmentType: l.AssessmentType})
}

// Committing tells the filter of c's record, before its commit, when c
// creates it: the filter never says no of a key being created (a save
// racing this one reads, and conflicts as before), and a create that
// conflicts leaves its key known, so that the save's next try reads.
func (k *Keys) Committing(c store.Commit) {
	if c.Previous == nil {
		k.Add(c.Record.Key)
	}
}

// Add records that a record of key is stored (or about to be: a store
// adds a create's key before its commit, so that the filter never says
// no of a key being created).
func (k *Keys) Add(key record.Key) {
	h1, h2 := k.hash(key)
	for i := range uint64(keyHashes) {
		w, bit := k.probe(h1, h2, i)
		k.bits[w].Or(bit)
	}
}

// Absent reports that no record of key is stored, as far as this process
// knows; false is "maybe" (or the filter is not filled yet).
func (k *Keys) Absent(key record.Key) bool {
	if !k.ready.Load() {
		return false
	}
	h1, h2 := k.hash(key)
	for i := range uint64(keyHashes) {
		if w, bit := k.probe(h1, h2, i); k.bits[w].Load()&bit == 0 {
			return true
		}
	}
	return false
}

// probe is the word and bit of a key's i-th probe, from its two hashes.
func (k *Keys) probe(h1, h2, i uint64) (int, uint64) {
	b := (h1 + i*h2) % (uint64(len(k.bits)) * 64)
	return int(b / 64), 1 << (b % 64)
}

// hash is the key's two hashes for double hashing (Kirsch and
// Mitzenmacher): the parts are separated by a byte no part holds.
func (k *Keys) hash(key record.Key) (uint64, uint64) {
	var h maphash.Hash
	h.SetSeed(k.seed)
	h.WriteString(key.ClientID)
	h.WriteByte(0)
	h.WriteString(key.PatientUUID)
	h.WriteByte(0)
	h.WriteString(key.AssessmentType)
	h1 := h.Sum64()
	h.WriteByte(1)
	h2 := h.Sum64() | 1 // odd: the probes do not repeat early
	return h1, h2
}
