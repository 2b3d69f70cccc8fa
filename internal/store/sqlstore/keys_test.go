package sqlstore_test

import (
	"fmt"
	"testing"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

func keyOf(i int) record.Key {
	return record.Key{ClientID: "acme", PatientUUID: fmt.Sprintf("patient-%d", i), AssessmentType: "faceScan"}
}

// TestKeysSayNoOnlyOfAbsentKeys: the filter never says no of a key added
// to it, says no of most others, and says maybe of everything until it
// is filled.
func TestKeysSayNoOnlyOfAbsentKeys(t *testing.T) {
	const n = 20000
	k := sqlstore.NewKeys(n)
	for i := range n {
		k.Add(keyOf(i))
	}
	if k.Absent(keyOf(n + 1)) {
		t.Fatal("the filter said no before it was filled")
	}
	k.MarkReady()
	for i := range n {
		if k.Absent(keyOf(i)) {
			t.Fatalf("key %d was added, and the filter says it is absent", i)
		}
	}
	maybe := 0
	for i := n; i < 2*n; i++ {
		if !k.Absent(keyOf(i)) {
			maybe++
		}
	}
	// 10 bits and 7 hashes a key: about 1% wrongly maybe.
	if rate := float64(maybe) / n; rate > 0.03 {
		t.Fatalf("%.1f%% of absent keys were maybe, want about 1%%", 100*rate)
	}
}
