package fhir_test

import (
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// observationOf is the LOINC code of the Observation that carries the
// interpretation of flags about each measurement (fhir.ObservedBy).
var observationOf = map[score.Measurement]string{
	score.BloodPressure: "85354-9", score.HeartRateReading: "8867-4", score.Rhythm: "8867-4",
	score.BreathingRate: "9279-1", score.OxygenSaturation: "2708-6", score.BodyMassIndex: "39156-5",
}

// TestJSONAndFHIRNeverDisagree builds both formats of every golden
// vector's record and compares what a receiver reads from each: the same
// flags in the same order with the same severity (Flag resources and
// their priority), each flag's HL7 interpretation code on the Observation
// of its measurement and no other code there, the same withheld reason,
// the same overall and credit scores, and the same caveats.
func TestJSONAndFHIRNeverDisagree(t *testing.T) {
	t.Parallel()
	measurementOf := map[string]score.Measurement{}
	for _, f := range score.AllFlags() {
		measurementOf[f.ID] = f.Measurement
	}
	priority := map[string]string{"severe": "PH", "moderate": "PM", "mild": "PL"}
	for _, c := range loadCases(t) {
		rec := record.Record{Fields: c.Fields, AssessmentCompletedAt: c.AssessmentCompletedAt}
		js := payload.BuildSensitive(rec, at)
		b := fhir.Build(record.Sensitive, rec, at)

		var flags []string
		obs := map[string]*fhir.Observation{}
		for _, e := range b.Entry {
			switch r := e.Resource.(type) {
			case *fhir.Flag:
				flags = append(flags, r.Code.Coding[0].Code+"/"+r.Extension[0].ValueCodeableConcept.Coding[0].Code)
			case *fhir.Observation:
				obs[r.Code.Coding[0].Code] = r
			}
		}
		var want []string
		codesAt := map[string][]string{}
		for _, f := range js.Flags {
			want = append(want, f.Code+"/"+priority[f.Severity])
			if loinc, ok := observationOf[measurementOf[f.Code]]; ok && obs[loinc] != nil {
				codesAt[loinc] = append(codesAt[loinc], f.Interpretation)
			}
		}
		if !slices.Equal(flags, want) {
			t.Errorf("%s: FHIR flags %v, JSON %v", c.Name, flags, want)
		}
		for loinc, o := range obs {
			var got []string
			for _, i := range o.Interpretation {
				for _, cd := range i.Coding {
					got = append(got, cd.Code)
				}
			}
			w := slices.Compact(slices.Sorted(slices.Values(codesAt[loinc])))
			if slices.Sort(got); !slices.Equal(got, w) {
				t.Errorf("%s: Observation %s interpretations %v, JSON flags give %v", c.Name, loinc, got, w)
			}
		}

		overall, credit := obs["overallHealthScore"], obs["healthCreditScore"]
		switch {
		case js.ResultsWithheld != nil:
			for _, o := range []*fhir.Observation{overall, credit} {
				if o == nil || o.DataAbsentReason == nil || o.DataAbsentReason.Coding[1].Code != js.ResultsWithheld.Reason || o.ValueQuantity != nil {
					t.Errorf("%s: withheld %s in JSON, FHIR %+v", c.Name, js.ResultsWithheld.Reason, o)
				}
			}
		case overall == nil || credit == nil || overall.DataAbsentReason != nil:
			t.Errorf("%s: JSON has scores, FHIR %+v", c.Name, overall)
		default:
			if overall.ValueQuantity.Value != *js.OverallHealthScore || credit.ValueQuantity.Value != *js.HealthCreditScore {
				t.Errorf("%s: overall %v/%v, credit %v/%v", c.Name, overall.ValueQuantity.Value, *js.OverallHealthScore,
					credit.ValueQuantity.Value, *js.HealthCreditScore)
			}
		}
		if overall != nil {
			var notes, caveats []string
			for _, n := range overall.Note {
				notes = append(notes, n.Text)
			}
			for _, cv := range js.Caveats {
				caveats = append(caveats, cv.Text)
			}
			if !slices.Equal(notes, caveats) {
				t.Errorf("%s: caveats differ: %v / %v", c.Name, notes, caveats)
			}
		}
	}
}
