package payload_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
)

// resultFields are the sensitive payload's fields that carry results
// (not measurements), as JSON.
func resultFields(t *testing.T, p payload.Sensitive) []byte {
	t.Helper()
	b, err := json.Marshal([]any{p.HealthCreditScore, p.ActivityScore, p.SleepScore, p.EquilibriumScore, p.MetabolismScore,
		p.OverallHealthScore, p.RelaxationScore, p.HealthCreditCategory, p.BloodPressureCategory, p.HeartRateCategory,
		p.HeartRateVariabilityCategory, p.BreathingRateCategory, p.OxygenSaturationCategory, p.ActivityCategory, p.SleepCategory,
		p.EquilibriumCategory, p.MetabolismCategory, p.OverallHealthCategory, p.RelaxationCategory, p.StressIndex,
		p.Flags, p.ResultsWithheld})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEqualResultsMeanTheSameResultsSent: for pairs of records (a record
// and the same record after one more random save), Results(a).Equal(b)
// holds exactly when the two sensitive payloads carry the same results,
// so "the results changed" can be decided on Results without building
// payloads.
func TestEqualResultsMeanTheSameResultsSent(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 13))
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	same, differ := 0, 0
	for range 4000 {
		a := record.Record{Fields: randomRecord(rng)}
		b := a
		later := randomRecord(rng)
		// One save changes a few fields of the record.
		var patch record.Patch
		for i := range record.NumFields() {
			if v, ok := later.Get(i); ok && rng.IntN(8) == 0 {
				patch.Values.Set(i, v)
			}
		}
		b.Fields.Apply(&patch)
		equal := payload.Results(a, at).Equal(payload.Results(b, at))
		sent := bytes.Equal(resultFields(t, payload.BuildSensitive(a, at)), resultFields(t, payload.BuildSensitive(b, at)))
		if equal != sent {
			t.Fatalf("Equal %v, payload results equal %v\na %+v\nb %+v", equal, sent, a.Fields, b.Fields)
		}
		if equal {
			same++
		} else {
			differ++
		}
	}
	if same < 200 || differ < 200 {
		t.Fatalf("%d pairs the same, %d different: draw pairs of both kinds", same, differ)
	}
}
