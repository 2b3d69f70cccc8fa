package record_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

func index(t *testing.T, name string) int {
	t.Helper()
	i, ok := record.FieldIndex(name)
	if !ok {
		t.Fatalf("no field %q", name)
	}
	return i
}

func TestApplyFollowsJSONMergePatch(t *testing.T) {
	t.Parallel()
	stored := record.Fields{FirstName: new("Ada"), Age: new(36.0), City: new("London")}
	clearCity := record.Patch{}
	clearCity.Clear(index(t, "city"))
	clearZip := record.Patch{}
	clearZip.Clear(index(t, "zipCode"))
	tests := []struct {
		name  string
		patch record.Patch
		want  record.Fields
	}{
		{"value overwrites", record.Patch{Values: record.Fields{Age: new(37.0)}},
			record.Fields{FirstName: new("Ada"), Age: new(37.0), City: new("London"), Latest: &record.Latest{Age: "age"}}},
		{"null clears", clearCity, record.Fields{FirstName: new("Ada"), Age: new(36.0)}},
		{"absent keeps", record.Patch{}, stored},
		{"new field adds", record.Patch{Values: record.Fields{State: new("CA")}},
			record.Fields{FirstName: new("Ada"), Age: new(36.0), City: new("London"), State: new("CA")}},
		{"clearing an absent field is a no-op", clearZip, stored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stored
			got.Apply(&tt.patch)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Apply = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSetAndGetReachEveryFieldByItsName(t *testing.T) {
	t.Parallel()
	var f record.Fields
	f.Set(index(t, "heartRateBpm"), 72.0)
	f.Set(index(t, "firstName"), "Ada")
	f.Set(index(t, "diabetic"), false)
	if f.HeartRateBpm == nil || *f.HeartRateBpm != 72 || *f.FirstName != "Ada" || *f.Diabetic {
		t.Fatalf("Set: %+v", f)
	}
	if v, ok := f.Get(index(t, "heartRateBpm")); !ok || v != 72.0 {
		t.Fatalf("Get = %v, %v", v, ok)
	}
	if _, ok := f.Get(index(t, "oxygen")); ok {
		t.Fatal("Get of an unset field reported a value")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Set with a value of the wrong type did not panic")
		}
	}()
	f.Set(index(t, "heartRateBpm"), "72")
}

func TestFieldNamesAreUniqueAndInOrder(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range record.NumFields() {
		names = append(names, record.FieldName(i))
		if j, ok := record.FieldIndex(record.FieldName(i)); !ok || j != i {
			t.Fatalf("FieldIndex(%q) = %d, %v", record.FieldName(i), j, ok)
		}
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("duplicate names in %v", names)
	}
	if names[0] != "assessmentType" || !slices.Contains(names, "IPAddress") || !slices.Contains(names, "riskTriglycerdies") {
		t.Fatalf("names = %v", names)
	}
}

const uuidA = "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"

func save(uuid string, p record.Patch) record.Save {
	p.Values.AssessmentType, p.Values.FunnelID, p.Values.Email = new("faceScan"), new("acme-main"), new("ada@example.com")
	if uuid != "" {
		p.Values.PatientUUID = new(uuid)
	}
	return record.Save{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: uuid, Email: "ada@example.com",
		FunnelID: "acme-main", Patch: p, FullSubscription: true}
}

func TestApplyCreatesOrUpdatesByTheFourRules(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	stored := &record.Record{Key: record.Key{ClientID: "acme", PatientUUID: uuidA, AssessmentType: "faceScan"},
		FunnelID: "acme-main", CreatedAt: t0, UpdatedAt: t0, Fields: record.Fields{City: new("London")}}
	const generated = "0196a1e2-0000-7000-8000-000000000001"
	tests := []struct {
		name     string
		stored   *record.Record
		uuid     string
		wantUUID string
		created  bool
	}{
		{"1: uuid given, record exists: update", stored, uuidA, uuidA, false},
		{"2: uuid given, none: create under it", nil, uuidA, uuidA, true},
		{"3: no uuid, found by email: update", stored, "", uuidA, false},
		{"4: no uuid, none: create under a new uuid", nil, "", generated, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0.Add(time.Minute)
			c := record.Apply(tt.stored, save(tt.uuid, record.Patch{Values: record.Fields{Age: new(36.0)}}), now, generated)
			r := c.Record
			if c.Created != tt.created || r.PatientUUID != tt.wantUUID || *r.Fields.PatientUUID != tt.wantUUID {
				t.Fatalf("created=%v uuid=%s field=%s", c.Created, r.PatientUUID, *r.Fields.PatientUUID)
			}
			if *r.Fields.Age != 36 || !r.UpdatedAt.Equal(now) {
				t.Fatalf("record = %+v", r)
			}
			if tt.created != r.CreatedAt.Equal(now) {
				t.Fatalf("CreatedAt = %v", r.CreatedAt)
			}
			if !tt.created && *r.Fields.City != "London" {
				t.Fatal("an update lost a stored field")
			}
		})
	}
	if stored.Fields.Age != nil || !stored.UpdatedAt.Equal(t0) {
		t.Fatal("Apply changed the stored record it was given")
	}
}

func TestApplyKeepsTheKeyFieldsToTheRecordsIdentity(t *testing.T) {
	t.Parallel()
	stored := &record.Record{Key: record.Key{ClientID: "acme", PatientUUID: uuidA, AssessmentType: "faceScan"}}
	s := save("", record.Patch{})
	s.Patch.Values.AssessmentType = new("voiceScan")
	c := record.Apply(stored, s, time.Now(), "")
	if *c.Record.Fields.AssessmentType != "faceScan" || *c.Record.Fields.PatientUUID != uuidA {
		t.Fatalf("key fields = %s %s", *c.Record.Fields.AssessmentType, *c.Record.Fields.PatientUUID)
	}
}

func TestEventsAreRaisedOncePerFlag(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	apply := func(stored *record.Record, f record.Fields, full bool, at time.Time) record.Change {
		s := save(uuidA, record.Patch{Values: f})
		s.FullSubscription = full
		return record.Apply(stored, s, at, "")
	}
	c := apply(nil, record.Fields{}, true, t0)
	if len(c.Raised) != 0 {
		t.Fatalf("no flags set: raised %v", c.Raised)
	}
	c = apply(&c.Record, record.Fields{FormCompleted: new(true)}, true, t0)
	if !slices.Equal(c.Raised, []record.DataType{record.NonSensitive}) {
		t.Fatalf("form completed: raised %v", c.Raised)
	}
	// Clearing and setting the flag again is not a first time.
	c = apply(&c.Record, record.Fields{FormCompleted: new(false)}, true, t0.Add(time.Second))
	c = apply(&c.Record, record.Fields{FormCompleted: new(true), AssessmentCompleted: new(true)}, true, t0.Add(2*time.Second))
	if !slices.Equal(c.Raised, []record.DataType{record.Sensitive}) {
		t.Fatalf("second save: raised %v", c.Raised)
	}
	if !c.Record.FormCompletedAt.Equal(t0) {
		t.Fatalf("FormCompletedAt moved to %v", c.Record.FormCompletedAt)
	}
	// Both at once, in order; without a full subscription, no sensitive event.
	both := record.Fields{FormCompleted: new(true), AssessmentCompleted: new(true)}
	if c := apply(nil, both, true, t0); !slices.Equal(c.Raised, []record.DataType{record.NonSensitive, record.Sensitive}) {
		t.Fatalf("both at once: raised %v", c.Raised)
	}
	c = apply(nil, both, false, t0)
	if !slices.Equal(c.Raised, []record.DataType{record.NonSensitive}) || c.Record.AssessmentCompletedAt.IsZero() {
		t.Fatalf("non-sensitive subscription: raised %v, completed at %v", c.Raised, c.Record.AssessmentCompletedAt)
	}
}
