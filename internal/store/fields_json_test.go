package store

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/pads-dev/pads/internal/record"
)

func TestAppendFieldsRoundTripsThroughEncodingJSON(t *testing.T) {
	t.Parallel()
	tests := []record.Fields{
		{},
		{"a": "plain", "b": 72.0, "c": true, "d": false},
		{"quote": `say "hi"`, "backslash": `C:\dir`, "newline": "a\nb", "control": "\x01\x1f", "unicode": "Zoë 東京 😀", "html": "<a&b>"},
		{"tiny": 1e-9, "big": 1.5e300, "negative": -30.25, "zero": 0.0, "third": 1.0 / 3, "max": math.MaxFloat64},
	}
	for _, f := range tests {
		var back record.Fields
		raw := appendFields(nil, f)
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if len(f) == 0 && len(back) == 0 {
			continue
		}
		if !reflect.DeepEqual(back, f) {
			t.Fatalf("round trip of %v gave %v (%s)", f, back, raw)
		}
	}
}
