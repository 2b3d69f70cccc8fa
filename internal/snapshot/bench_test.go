package snapshot_test

import (
	"testing"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/snapshot"
)

// fullest is the golden record whose sensitive FHIR Bundle is largest: a
// save of a complete assessment, the costliest to build.
func fullest(b *testing.B) record.Record {
	var best record.Record
	size := 0
	for _, rec := range golden(&testing.T{}) {
		if body, _ := fhir.Encode(record.Sensitive, rec); len(body) > size {
			best, size = rec, len(body)
		}
	}
	return best
}

// BenchmarkEventsOfASave is the event work of a save that raises both
// events: before, a seed payload and a FHIR Bundle each (bodies); now, a
// snapshot each (snapshot).
func BenchmarkEventsOfASave(b *testing.B) {
	rec := fullest(b)
	dts := []record.DataType{record.NonSensitive, record.Sensitive}
	b.Run("bodies", func(b *testing.B) {
		for b.Loop() {
			for _, dt := range dts {
				if _, _, err := payload.Encode(dt, rec); err != nil {
					b.Fatal(err)
				}
				if _, err := fhir.Encode(dt, rec); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		for b.Loop() {
			for _, dt := range dts {
				if _, _, err := snapshot.Take(dt, rec, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkAttemptBody is what an attempt adds per delivered event: the
// body of its destination's format built from the sensitive snapshot.
func BenchmarkAttemptBody(b *testing.B) {
	snap, _, err := snapshot.Take(record.Sensitive, fullest(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{snapshot.FormatSeedJSON, snapshot.FormatFHIR} {
		b.Run(format, func(b *testing.B) {
			b.SetBytes(int64(len(snap)))
			for b.Loop() {
				if _, err := snapshot.Body(format, record.Sensitive, snap, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
