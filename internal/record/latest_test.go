package record_test

import (
	"encoding/json"
	"testing"

	"github.com/pads-dev/pads/internal/record"
)

// TestLatestNamesTheFieldThatLastGaveEachQuantity applies saves in turn
// and checks the marker after each: the later field wins, a save that does
// not touch a quantity keeps its marker, and one save giving two fields of
// a quantity names the first of its list (dateOfBirth before age: the exact
// one decides).
func TestLatestNamesTheFieldThatLastGaveEachQuantity(t *testing.T) {
	t.Parallel()
	saves := []struct {
		values record.Fields
		want   record.Latest
	}{
		{record.Fields{WeightLb: new(150.0), HeartRateBpm: new(72.0), Smoker: new(false)},
			record.Latest{Weight: "weightLb", BMI: record.BodyFields, HeartRate: "heartRateBpm", Smoker: "smoker"}},
		{record.Fields{WeightKg: new(70.0), Ibi: new(400.0)},
			record.Latest{Weight: "weightKg", BMI: record.BodyFields, HeartRate: "ibi", Smoker: "smoker"}},
		{record.Fields{RiskBmi: new(24.0), SmokerRiskStatus: new("current smoker"), DateOfBirth: new("1990-01-01")},
			record.Latest{Age: "dateOfBirth", Weight: "weightKg", BMI: "riskBmi", HeartRate: "ibi", Smoker: "smokerRiskStatus"}},
		{record.Fields{HeightIn: new(5.0), Age: new(36.0), DateOfBirth: new("1990-01-01")},
			record.Latest{Age: "dateOfBirth", Weight: "weightKg", Height: "heightFt", BMI: record.BodyFields, HeartRate: "ibi", Smoker: "smokerRiskStatus"}},
		{record.Fields{HeightCm: new(170.0), HeartRateBpm: new(70.0), RiskRestingHeartRate: new(71.0)},
			record.Latest{Age: "dateOfBirth", Weight: "weightKg", Height: "heightCm", BMI: record.BodyFields, HeartRate: "heartRateBpm", Smoker: "smokerRiskStatus"}},
		{record.Fields{City: new("Leeds")},
			record.Latest{Age: "dateOfBirth", Weight: "weightKg", Height: "heightCm", BMI: record.BodyFields, HeartRate: "heartRateBpm", Smoker: "smokerRiskStatus"}},
	}
	var f record.Fields
	for i, s := range saves {
		before := f.Latest
		var copied record.Latest
		if before != nil {
			copied = *before
		}
		f.Apply(&record.Patch{Values: s.values})
		if f.Latest == nil || *f.Latest != s.want {
			t.Fatalf("save %d: Latest = %+v, want %+v", i, f.Latest, s.want)
		}
		if before != nil && *before != copied {
			t.Fatalf("save %d wrote through the stored marker", i)
		}
	}
}

// TestRecordsStoredWithoutLatestStillDecode: a record stored before the
// marker existed decodes with none, and a marker survives a round trip.
func TestRecordsStoredWithoutLatestStillDecode(t *testing.T) {
	t.Parallel()
	var old record.Fields
	if err := json.Unmarshal([]byte(`{"weightLb":150,"weightKg":80,"heartRateBpm":72}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Latest != nil || *old.WeightKg != 80 {
		t.Fatalf("old record decoded as %+v", old)
	}
	old.Apply(&record.Patch{Values: record.Fields{WeightKg: new(81.0)}})
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	var back record.Fields
	if err := json.Unmarshal(b, &back); err != nil || back.Latest == nil || back.Latest.Weight != "weightKg" {
		t.Fatalf("round trip: %s -> %+v, %v", b, back.Latest, err)
	}
}
