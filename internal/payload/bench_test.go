package payload_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
)

// BenchmarkBuildSensitive makes the sensitive payload of every golden
// case, the scoring model included: the work an event does per record.
func BenchmarkBuildSensitive(b *testing.B) {
	raw, err := os.ReadFile(casesFile())
	if err != nil {
		b.Fatal(err)
	}
	var in struct {
		Cases []struct {
			Fields record.Fields `json:"fields"`
		}
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		b.Fatal(err)
	}
	recs := make([]record.Record, len(in.Cases))
	for i, c := range in.Cases {
		recs[i] = record.Record{Fields: c.Fields}
	}
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		payload.BuildSensitive(recs[i%len(recs)], at)
	}
}

// casesFile is testdata/cases.json, or PADS_BENCH_CASES (to time another
// version of the model on the same records).
func casesFile() string {
	if f := os.Getenv("PADS_BENCH_CASES"); f != "" {
		return f
	}
	return "testdata/cases.json"
}
