package storetest

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// Raw reads one byte-string column of every row a query (with ?
// placeholders) returns, straight from the database.
type Raw func(q string, args ...any) [][]byte

// patientBytes are the query of every sealed or keyed byte string the
// database keeps of a patient: the record (and its blind index), its
// events' bodies and its attempts' sealed answers.
var patientBytes = []string{
	"SELECT sealed FROM records WHERE patient_uuid = ?",
	"SELECT email_index FROM records WHERE patient_uuid = ?",
	"SELECT e.payload FROM events e JOIN records r ON r.id = e.record_id WHERE r.patient_uuid = ? AND e.payload IS NOT NULL",
	"SELECT e.fhir FROM events e JOIN records r ON r.id = e.record_id WHERE r.patient_uuid = ? AND e.fhir IS NOT NULL",
	`SELECT a.response FROM attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN events e ON e.id = d.event_id
		JOIN records r ON r.id = e.record_id WHERE r.patient_uuid = ? AND a.response IS NOT NULL`,
}

func capture(raw Raw, uuid string) [][]byte {
	var out [][]byte
	for _, q := range patientBytes {
		out = append(out, raw(q, uuid)...)
	}
	return out
}

// ErasureLeavesNoBytes is the file scan of an erasure: it saves patient A
// several times (every version of A's record is captured as stored, with
// its blind index, its events' bodies and its attempts' sealed answers)
// and patient B once, erases A, runs cleanup (the store's documented
// cleanup after an erasure), and reads files: none of A's captured bytes
// may be there, in 16-byte windows (a value split across pages still
// shows), while B's are (the scan sees what is there).
func ErasureLeavesNoBytes(t *testing.T, s store.Store, raw Raw, cleanup func(), files func() []byte) {
	ctx := context.Background()
	h := &harness{Store: s, saves: Saves(t, s)}
	var erased [][]byte
	for i := range 3 {
		h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true),
			AssessmentCompleted: new(i > 0), FirstName: new("Ada"), HeartRateBpm: new(60.0 + float64(i))}))
		erased = append(erased, capture(raw, uuidA)...)
	}
	completed(t, h, uuidB, "bob@example.com")
	finishAll(t, h, time.Now().Add(time.Second), store.Delivered)
	commitUpdate(t, h.Store, uuidA, time.Now().UTC()) // a results-updated event: its snapshot and answer go too
	finishAll(t, h, time.Now().Add(time.Second), store.Delivered)
	erased = append(erased, capture(raw, uuidA)...)
	kept := capture(raw, uuidB)
	if len(erased) < 8 || len(kept) < 4 {
		t.Fatalf("captured %d values of the erased patient and %d of the other: the scan would prove nothing", len(erased), len(kept))
	}
	if _, err := s.Erase(ctx, store.Patient{ClientID: "acme", PatientUUID: uuidA}); err != nil {
		t.Fatal(err)
	}
	// The cleanup removes only what no transaction can still see: on a
	// shared PostgreSQL server a snapshot taken before the erasure (an
	// ANALYZE, say) keeps the rows until it ends, and the cleanup is run
	// again, as the operator would.
	var data []byte
	for try := 1; ; try++ {
		cleanup()
		data = files()
		left := leftOver(data, erased)
		if left == "" {
			break
		}
		if try == 5 {
			t.Fatal(left)
		}
		time.Sleep(time.Second)
	}
	found, windows := 0, 0
	for _, b := range kept {
		for off := 0; off+16 <= len(b); off += 16 {
			windows++
			if bytes.Contains(data, b[off:off+16]) {
				found++
			}
		}
	}
	if found*10 < windows*9 {
		t.Fatalf("only %d of %d windows of the kept patient's bytes are in the files: the scan does not see them", found, windows)
	}
}

// leftOver says which window of an erased value is still in data; "" when
// none is.
func leftOver(data []byte, erased [][]byte) string {
	for _, b := range erased {
		for off := 0; off+16 <= len(b); off += 16 {
			if bytes.Contains(data, b[off:off+16]) {
				return fmt.Sprintf("bytes %d..%d of an erased value (%d bytes) are still in the files", off, off+16, len(b))
			}
		}
	}
	return ""
}
