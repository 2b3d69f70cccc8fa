package fhir_test

import (
	"fmt"
	"math/rand/v2"
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
// their priority), seeClinician and reading (extensions), each flag's HL7
// interpretation code and text on the Observation of its measurement, one
// concept per flag and no other code there, the same withheld reason,
// the same overall and credit scores, and the same caveats.
func TestJSONAndFHIRNeverDisagree(t *testing.T) {
	t.Parallel()
	measurementOf := map[string]score.Measurement{}
	for _, f := range score.AllFlags() {
		measurementOf[f.ID] = f.Measurement
	}
	for _, c := range loadCases(t) {
		agree(t, c.Name, record.Record{Fields: c.Fields, AssessmentCompletedAt: c.AssessmentCompletedAt}, measurementOf)
	}
	// And over random records: every field drawn over its accepted range or
	// left out, with and without a marker.
	rng := rand.New(rand.NewPCG(22, 4))
	for i := range 3000 {
		agree(t, fmt.Sprintf("random %d", i), record.Record{Fields: randomFields(rng)}, measurementOf)
	}
}

func randomFields(rng *rand.Rand) record.Fields {
	maybe := func(lo, hi float64) *float64 {
		if rng.IntN(4) == 0 {
			return nil
		}
		return new(float64(int(lo + rng.Float64()*(hi-lo))))
	}
	maybeB := func() *bool {
		if rng.IntN(2) == 0 {
			return nil
		}
		return new(rng.IntN(3) == 0)
	}
	f := record.Fields{
		Age: maybe(0, 100), HeightCm: maybe(140, 200), WeightKg: maybe(40, 150), HeartRateBpm: maybe(30, 200),
		HeartRateVariabilityMs: maybe(0, 150), IrregularHeartBeats: maybeB(), SystolicBloodPressureMmhg: maybe(60, 230),
		DiastolicBloodPressureMmhg: maybe(30, 140), BreathingRateBpm: maybe(4, 40), RiskBmi: maybe(15, 50), Oxygen: maybe(80, 100),
		RiskRestingHeartRate: maybe(30, 200), RiskTotalCholestrol: maybe(100, 320), RiskLdl: maybe(50, 250), RiskHdl: maybe(20, 90),
		RiskTriglycerdies: maybe(50, 900), RiskMetSComp: maybe(0, 5), RiskTenYrCvd: maybe(0, 40), Smoker: maybeB(),
		Diabetic: maybeB(), Hypertension: maybeB(),
	}
	if rng.IntN(2) == 0 {
		f.Latest = &record.Latest{HeartRate: "riskRestingHeartRate", BMI: "riskBmi"}
	}
	return f
}

// agree checks that the two formats of rec say the same (see
// TestJSONAndFHIRNeverDisagree).
func agree(t *testing.T, name string, rec record.Record, measurementOf map[string]score.Measurement) {
	t.Helper()
	priority := map[string]string{"severe": "PH", "moderate": "PM", "mild": "PL"}
	js := payload.BuildSensitive(rec, at)
	b := fhir.Build(record.Sensitive, rec, at)

	var flags []string
	obs := map[string]*fhir.Observation{}
	for _, e := range b.Entry {
		switch r := e.Resource.(type) {
		case *fhir.Flag:
			see, reading := "", ""
			for _, x := range r.Extension {
				switch x.URL {
				case fhir.SeeClinicianExtension:
					see = fmt.Sprint(*x.ValueBoolean)
				case fhir.ReadingExtension:
					reading = x.ValueString
				}
			}
			flags = append(flags, r.Code.Coding[0].Code+"/"+r.Extension[0].ValueCodeableConcept.Coding[0].Code+"/"+see+"/"+reading)
		case *fhir.Observation:
			obs[r.Code.Coding[0].Code] = r
		}
	}
	var want []string
	codesAt := map[string][]string{}
	for _, f := range js.Flags {
		if f.Reading == "" {
			t.Errorf("%s: flag %s without its reading", name, f.Code)
		}
		want = append(want, f.Code+"/"+priority[f.Severity]+"/"+fmt.Sprint(f.SeeClinician)+"/"+f.Reading)
		if loinc, ok := observationOf[measurementOf[f.Code]]; ok && obs[loinc] != nil {
			codesAt[loinc] = append(codesAt[loinc], f.Interpretation+" "+f.Text)
		}
	}
	if !slices.Equal(flags, want) {
		t.Errorf("%s: FHIR flags %v, JSON %v", name, flags, want)
	}
	for loinc, o := range obs {
		var got []string
		for _, i := range o.Interpretation {
			for _, cd := range i.Coding {
				got = append(got, cd.Code+" "+i.Text)
			}
		}
		// Every flag about the measurement, one coded concept each, in
		// the order of the flags (two flags of one code are two).
		if w := codesAt[loinc]; !slices.Equal(got, w) {
			t.Errorf("%s: Observation %s interpretations %v, JSON flags give %v", name, loinc, got, w)
		}
	}

	overall, credit := obs["overallHealthScore"], obs["healthCreditScore"]
	switch {
	case js.ResultsWithheld != nil:
		for _, o := range []*fhir.Observation{overall, credit} {
			if o == nil || o.DataAbsentReason == nil || o.DataAbsentReason.Coding[1].Code != js.ResultsWithheld.Reason || o.ValueQuantity != nil {
				t.Errorf("%s: withheld %s in JSON, FHIR %+v", name, js.ResultsWithheld.Reason, o)
			}
		}
	case overall == nil || credit == nil || overall.DataAbsentReason != nil:
		t.Errorf("%s: JSON has scores, FHIR %+v", name, overall)
	default:
		if overall.ValueQuantity.Value != *js.OverallHealthScore || credit.ValueQuantity.Value != *js.HealthCreditScore {
			t.Errorf("%s: overall %v/%v, credit %v/%v", name, overall.ValueQuantity.Value, *js.OverallHealthScore,
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
			t.Errorf("%s: caveats differ: %v / %v", name, notes, caveats)
		}
	}
}
