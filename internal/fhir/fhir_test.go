package fhir_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/record"
)

func normalAdult(t *testing.T) record.Record {
	t.Helper()
	for _, c := range loadCases(t) {
		if c.Name == "normal-adult" {
			return record.Record{Fields: c.Fields, UpdatedAt: at, AssessmentCompletedAt: at.Add(-time.Minute)}
		}
	}
	t.Fatal("no case normal-adult")
	return record.Record{}
}

// codes lists the first coding's code of each Observation of b, in order.
func codes(b fhir.Bundle) []string {
	var out []string
	for _, e := range b.Entry {
		if o, ok := e.Resource.(*fhir.Observation); ok {
			out = append(out, o.Code.Coding[0].Code)
		}
	}
	return out
}

func TestNonSensitiveBundleHoldsThePatientOnly(t *testing.T) {
	t.Parallel()
	b := fhir.Build(record.NonSensitive, normalAdult(t), at)
	if b.Type != "collection" || len(b.Entry) != 1 {
		t.Fatalf("bundle = %+v", b)
	}
	p, ok := b.Entry[0].Resource.(*fhir.Patient)
	if !ok || p.Identifier[0].System != fhir.PatientIdentifierSystem || p.Identifier[0].Value != "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f" ||
		b.Entry[0].FullURL != "urn:uuid:6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f" {
		t.Fatalf("patient entry = %+v", b.Entry[0])
	}
}

func TestSensitiveBundleHasEachMeasurementAndScore(t *testing.T) {
	t.Parallel()
	rec := normalAdult(t)
	b := fhir.Build(record.Sensitive, rec, at)
	want := []string{"8867-4", "85354-9", "9279-1", "2708-6", "80404-7", "39156-5", "metabolismScore", "equilibriumScore",
		"relaxationScore", "activityScore", "sleepScore", "overallHealthScore", "healthCreditScore", "stressIndex"}
	if got := codes(b); !slices.Equal(got, want) {
		t.Fatalf("observations %v, want %v", got, want)
	}
	urls := map[string]bool{}
	for _, e := range b.Entry {
		if urls[e.FullURL] {
			t.Fatalf("fullUrl %s twice", e.FullURL)
		}
		urls[e.FullURL] = true
	}
	for _, e := range b.Entry[1:] {
		o, ok := e.Resource.(*fhir.Observation)
		if !ok {
			continue
		}
		if o.Status != "final" || o.Subject.Reference != b.Entry[0].FullURL || o.EffectiveDateTime != "2026-11-22T11:59:00Z" {
			t.Errorf("%s: status %q subject %v effective %q", o.Code.Text, o.Status, o.Subject, o.EffectiveDateTime)
		}
		isScore := o.Code.Coding[0].System == fhir.ScoreSystem
		if isScore != (o.Method.Coding[0].Code == "pads-score-3") || isScore != (len(o.Category) == 0) {
			t.Errorf("%s: a score has the model as its method and no vital-signs category", o.Code.Text)
		}
		if !isScore && o.Method.Coding[0].System != fhir.MethodSystem {
			t.Errorf("%s: a measurement says how it was obtained", o.Code.Text)
		}
		if isScore && len(o.DerivedFrom) == 0 {
			t.Errorf("%s: a score is derived from its inputs", o.Code.Text)
		}
		for _, r := range o.DerivedFrom {
			if !urls[r.Reference] {
				t.Errorf("%s: derivedFrom %s is not in the bundle", o.Code.Text, r.Reference)
			}
		}
	}
	// Encode is Build at the record's last update, as JSON.
	got, err := fhir.Encode(record.Sensitive, rec)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(b); string(got) != string(want) {
		t.Fatal("Encode differs from Build at UpdatedAt")
	}
}

func TestWithheldScoresSayWhyAndUnknownValuesAreLeftOut(t *testing.T) {
	t.Parallel()
	rec := normalAdult(t)
	rec.Fields.Age = new(6.0) // a child: the adult model gives no scores
	rec.Fields.Oxygen = new(85.0)
	b := fhir.Build(record.Sensitive, rec, at)
	for _, e := range b.Entry {
		o, ok := e.Resource.(*fhir.Observation)
		if !ok {
			continue
		}
		switch c := o.Code.Coding[0].Code; c {
		case "stressIndex", "metabolismScore":
			t.Fatalf("a child's bundle has %s", c)
		case "overallHealthScore", "healthCreditScore":
			if o.ValueQuantity != nil || o.DataAbsentReason == nil || o.DataAbsentReason.Coding[0].Code != "not-applicable" ||
				o.DataAbsentReason.Coding[1].Code != "under-18" {
				t.Fatalf("a child's %s: %+v", c, o)
			}
		case "2708-6":
			if len(o.Interpretation) != 1 || o.Interpretation[0].Coding[0].Code != "LL" ||
				o.Interpretation[0].Text != "Red flag: SpO2 below 90%; see a clinician" {
				t.Fatalf("SpO2 85 interpretation = %+v", o.Interpretation)
			}
		}
	}
	empty := fhir.Build(record.Sensitive, record.Record{Fields: record.Fields{PatientUUID: new("6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f")}}, at)
	if len(empty.Entry) != 3 { // the Patient, and the overall and credit scores withheld (age unknown)
		t.Fatalf("a record without measurements has %d entries", len(empty.Entry))
	}
	raw, _ := json.Marshal(empty)
	if s := string(raw); strings.Contains(s, "null") || strings.Contains(s, `""`) || strings.Contains(s, "[]") || strings.Contains(s, "{}") {
		t.Fatalf("empty values in %s", raw)
	}
}

func TestBodyMeasurementsAreMetricAndBMIDerivesFromThem(t *testing.T) {
	t.Parallel()
	rec := record.Record{Fields: record.Fields{PatientUUID: new("6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"), WeightLb: new(150.0),
		HeightFt: new(5.0), HeightIn: new(6.0)}}
	b := fhir.Build(record.Sensitive, rec, at)
	values := map[string]fhir.Quantity{}
	var bmi *fhir.Observation
	for _, e := range b.Entry[1:] {
		o := e.Resource.(*fhir.Observation)
		if o.ValueQuantity == nil {
			continue // a withheld score
		}
		values[o.Code.Coding[0].Code] = *o.ValueQuantity
		if o.Code.Coding[0].Code == "39156-5" {
			bmi = o
		}
	}
	if w, h := values["29463-7"], values["8302-2"]; w.Value != 68.04 || w.Code != "kg" || h.Value != 167.64 || h.Code != "cm" {
		t.Fatalf("weight %+v height %+v", w, h)
	}
	if bmi == nil || bmi.ValueQuantity.Value != 24.2 || len(bmi.DerivedFrom) != 2 {
		t.Fatalf("bmi = %+v", bmi)
	}
	rec.Fields.RiskBmi = new(24.25) // given: as given, derived from nothing
	rec.Fields.Latest = &record.Latest{BMI: "riskBmi"}
	for _, e := range fhir.Build(record.Sensitive, rec, at).Entry[1:] {
		if o := e.Resource.(*fhir.Observation); o.Code.Coding[0].Code == "39156-5" && (o.ValueQuantity.Value != 24.25 || o.DerivedFrom != nil) {
			t.Fatalf("given bmi = %+v", o)
		}
	}
}

func TestGenderFromBiologicalSex(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"male": "male", "M": "male", " Female ": "female", "f": "female", "unknown": "unknown",
		"intersex": "other", "": ""} {
		if got := fhir.Gender(&in); got != want {
			t.Errorf("Gender(%q) = %q, want %q", in, got, want)
		}
	}
	if fhir.Gender(nil) != "" {
		t.Error("no sex, no gender")
	}
}
