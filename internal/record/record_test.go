package record_test

import (
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

func TestApplyFollowsJSONMergePatch(t *testing.T) {
	t.Parallel()
	stored := record.Fields{"firstName": "Ada", "age": 36.0, "city": "London"}
	tests := []struct {
		name  string
		patch record.Patch
		want  record.Fields
	}{
		{"value overwrites", record.Patch{"age": 37.0}, record.Fields{"firstName": "Ada", "age": 37.0, "city": "London"}},
		{"nil clears", record.Patch{"city": nil}, record.Fields{"firstName": "Ada", "age": 36.0}},
		{"absent keeps", record.Patch{}, stored},
		{"new field adds", record.Patch{"state": "CA"}, record.Fields{"firstName": "Ada", "age": 36.0, "city": "London", "state": "CA"}},
		{"clearing an absent field is a no-op", record.Patch{"zipCode": nil}, stored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := maps.Clone(stored)
			got.Apply(tt.patch)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Apply = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAdvanceFiresOncePerFlag(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	r := record.Record{Fields: record.Fields{}}

	if got := r.Advance(t0); got != (record.Triggers{}) {
		t.Fatalf("no flags set: got %+v", got)
	}
	r.Fields.Apply(record.Patch{"formCompleted": true})
	if got := r.Advance(t0); !got.FormCompleted || got.AssessmentCompleted {
		t.Fatalf("form completed: got %+v", got)
	}
	// Clearing and setting the flag again is not a first time.
	r.Fields.Apply(record.Patch{"formCompleted": false})
	r.Advance(t0.Add(time.Second))
	r.Fields.Apply(record.Patch{"formCompleted": true, "assessmentCompleted": true})
	got := r.Advance(t0.Add(2 * time.Second))
	if got.FormCompleted || !got.AssessmentCompleted {
		t.Fatalf("second save: got %+v", got)
	}
	if !r.FormCompletedAt.Equal(t0) {
		t.Fatalf("FormCompletedAt moved to %v", r.FormCompletedAt)
	}
}
