// Package fhir turns a stored record into the FHIR R4 Bundle that a
// destination with format fhir-r4 receives instead of the seed's JSON
// payload. It is pure: no I/O, no clock of its own.
//
// The Bundle is of type collection: a set of resources pads reports, not
// instructions for a FHIR server (docs/delivery.md says how to post it to
// one). The non-sensitive Bundle holds the Patient; the sensitive one the
// Patient, a vital-signs Observation per measurement the model read
// (LOINC codes, UCUM units, the method that obtained it, the flags about
// it as HL7 ObservationInterpretation codes), an Observation per score of
// pads' model (ScoreSystem), derived from the measurements it used, and a
// Flag per finding. Only known values appear: a null of the seed payload
// is an element left out, a null score an Observation left out, except
// the overall and health credit scores, whose Observations say why they
// are withheld (dataAbsentReason).
package fhir

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// Model is the scoring model whose results the sensitive Bundle carries.
const Model = score.Version

// Encode returns the FHIR R4 Bundle of data type dt for rec as JSON, made
// at the record's last update. It is what the save service snapshots into
// each event beside the seed payload.
func Encode(dt record.DataType, rec record.Record) ([]byte, error) {
	return json.Marshal(Build(dt, rec, rec.UpdatedAt))
}

// Build makes the Bundle of data type dt for rec. at is when it is made;
// the measurements are dated at the assessment's completion, or at when
// the record has none.
func Build(dt record.DataType, rec record.Record, at time.Time) Bundle {
	in := score.FromRecord(rec.Fields, assessedAt(rec, at))
	return build(dt, rec, at, in, score.Compute(in), Model)
}

// FromStored builds the Bundle of data type dt from what an event stored
// (internal/snapshot): the record, when the event was raised, and the
// model's inputs and results then, with the model's version. It never runs
// the model: a retry or a replay sends the results the save computed.
func FromStored(dt record.DataType, rec record.Record, at time.Time, in score.Inputs, r score.Result, model string) Bundle {
	return build(dt, rec, at, in, r, model)
}

func build(dt record.DataType, rec record.Record, at time.Time, in score.Inputs, r score.Result, model string) Bundle {
	f := rec.Fields
	b := &builder{rec: rec, dt: dt, patient: patientURL(rec), model: model}
	b.add(b.patient, patientOf(f, assessedAt(rec, at)))
	if dt.Results() {
		b.effective = dateTime(assessedAt(rec, at))
		b.sensitive(in, r)
	}
	tags := []Coding{{System: EventSystem, Code: string(dt)}}
	if c := code(f.AssessmentType); c != "" {
		tags = append(tags, Coding{System: AssessmentTypeSystem, Code: c})
	}
	if c := code(f.FunnelID); c != "" {
		tags = append(tags, Coding{System: FunnelSystem, Code: c})
	}
	return Bundle{ResourceType: "Bundle", Meta: &Meta{Tag: tags}, Type: "collection", Timestamp: dateTime(at), Entry: b.entries}
}

// builder collects a Bundle's entries.
type builder struct {
	rec       record.Record
	dt        record.DataType
	patient   string // the Patient's fullUrl
	effective string
	model     string // the version of the model whose results these are
	entries   []Entry
	flags     []score.Flag // the results' flags, for the interpretations
	// urls are the fullUrls of the entries made so far, by measure key or
	// score code, for derivedFrom.
	urls map[string]string
}

func (b *builder) add(url string, resource any) {
	b.entries = append(b.entries, Entry{FullURL: url, Resource: resource})
}

// sensitive adds the measurements the model read, then its scores, then a
// Flag per finding.
func (b *builder) sensitive(in score.Inputs, r score.Result) {
	b.urls = map[string]string{}
	b.flags = r.Flags
	body := score.BodyOf(b.rec.Fields)

	b.measurement(heartRate, in.HeartRate, r.HeartRateCategory, heartRateMethod(in.HeartRateFrom), nil)
	if in.Systolic != nil || in.Diastolic != nil {
		o := b.observation(bloodPressure, r.BloodPressureCategory, cameraEstimate, nil)
		for _, c := range []struct {
			m measure
			v *float64
		}{{systolic, in.Systolic}, {diastolic, in.Diastolic}} {
			if c.v != nil {
				o.Component = append(o.Component, Component{Code: concept(c.m), ValueQuantity: quantity(c.m, *c.v)})
			}
		}
		b.put(bloodPressure.key, o)
	}
	b.measurement(breathingRate, in.BreathingRate, r.BreathingRateCategory, cameraEstimate, nil)
	b.measurement(oxygenSaturation, in.SpO2, r.OxygenSaturationCategory, cameraEstimate, nil)
	hrv := hrvSDNN
	if in.HRVMeasure == score.RMSSD {
		hrv = hrvRMSSD
	}
	b.measurement(hrv, in.HRV, r.HeartRateVariabilityCategory, cameraEstimate, nil)
	// Weight and height in metric units, rounded to 0.01: the model's
	// values, which leave out an implausible pair.
	b.measurement(bodyWeight, roundTo(body.WeightKg, 100), nil, clientReported, nil)
	b.measurement(bodyHeight, roundTo(inchesToCm(body.HeightIn), 100), nil, clientReported, nil)
	// BMI is riskBmi as the model read it, or else made from the weight
	// and height above (to 0.1), and then derived from them.
	if in.BMIComputed {
		b.measurement(bmi, roundTo(in.BMI, 10), nil, padsComputed, b.refs(bodyWeight.key, bodyHeight.key))
	} else {
		b.measurement(bmi, in.BMI, nil, clientReported, nil)
	}

	// The scores, each derived from the Observations of the inputs it
	// reads (docs/scoring.md, "Scores"); only adults have scores.
	bmiKey := bmi.key
	b.score(metabolismScore, r.Metabolism, r.MetabolismCategory, bmiKey)
	b.score(equilibriumScore, r.Equilibrium, r.EquilibriumCategory, breathingRate.key, oxygenSaturation.key, bloodPressure.key, heartRate.key)
	b.score(relaxationScore, r.Relaxation, r.RelaxationCategory, hrv.key, heartRate.key)
	b.score(activityScore, r.Activity, r.ActivityCategory, heartRate.key, bmiKey, hrv.key)
	b.score(sleepScore, r.Sleep, r.SleepCategory, hrv.key, heartRate.key, breathingRate.key)
	from := []string{bloodPressure.key, metabolismScore.code, equilibriumScore.code, relaxationScore.code, activityScore.code, sleepScore.code}
	if r.Withheld != nil {
		// The verdict is withheld: its Observations say why, with the
		// readings that were known.
		from = []string{bloodPressure.key, heartRate.key, breathingRate.key, oxygenSaturation.key}
	}
	b.verdict(overallHealthScore, r.Overall, r.OverallHealthCategory, r.Withheld, notesOf(r), from...)
	b.verdict(healthCreditScore, r.HealthCredit, r.HealthCreditCategory, r.Withheld, nil, overallHealthScore.code)
	if r.StressIndex != nil {
		o := b.modelObservation(stressIndex, relaxationScore.code)
		o.ValueString = *r.StressIndex
		b.put(stressIndex.code, o)
	}
	for _, f := range r.Flags {
		b.add(b.entryURL("flag-"+f.ID), b.flagResource(f))
	}
}

// measurement adds a vital-signs Observation of m when v is known, with
// the model's category of it and the flags about it as its
// interpretations, and how it was obtained as its method.
func (b *builder) measurement(m measure, v *float64, category *string, method *CodeableConcept, derivedFrom []Reference) {
	if v == nil {
		return
	}
	o := b.observation(m, category, method, derivedFrom)
	o.ValueQuantity = quantity(m, *v)
	b.put(m.key, o)
}

func (b *builder) observation(m measure, category *string, method *CodeableConcept, derivedFrom []Reference) *Observation {
	o := &Observation{ResourceType: "Observation", Status: "final", Category: vitalSigns, Code: concept(m),
		Subject: &Reference{b.patient}, EffectiveDateTime: b.effective, Interpretation: interpretations(category, b.flags, m.key),
		Method: method, DerivedFrom: derivedFrom}
	if method == cameraEstimate || method == fromIbi {
		o.Note = cameraNote
	}
	return o
}

// score adds an Observation of a score when it is known.
func (b *builder) score(s scoreKind, v *float64, category *string, from ...string) {
	if v == nil {
		return
	}
	o := b.modelObservation(s, from...)
	o.ValueQuantity = &Quantity{Value: *v, Unit: "score", System: UCUM, Code: "{score}"}
	o.Interpretation = interpretation(category)
	b.put(s.code, o)
}

// verdict adds the Observation of the overall or health credit score: its
// value, or, when the verdict is withheld, a dataAbsentReason saying why.
// A red flag's label is its interpretation either way.
func (b *builder) verdict(s scoreKind, v *float64, category *string, withheld *score.Withheld, notes []Annotation, from ...string) {
	switch {
	case v != nil:
		b.score(s, v, category, from...)
	case withheld != nil:
		o := b.modelObservation(s, from...)
		o.DataAbsentReason = absent(withheld)
		o.Interpretation = interpretation(category)
		b.put(s.code, o)
	default:
		return
	}
	if notes != nil {
		b.entries[len(b.entries)-1].Resource.(*Observation).Note = notes
	}
}

// modelObservation is an Observation of pads' model: coded in ScoreSystem,
// made by the model named in its method, derived from the entries keyed
// by from that the Bundle holds.
func (b *builder) modelObservation(s scoreKind, from ...string) *Observation {
	return &Observation{ResourceType: "Observation", Status: "final",
		Code:    CodeableConcept{Coding: []Coding{{ScoreSystem, s.code, s.display}}, Text: s.display},
		Subject: &Reference{b.patient}, EffectiveDateTime: b.effective,
		Method:      &CodeableConcept{Coding: []Coding{{ModelSystem, b.model, "pads scoring model " + b.model}}, Text: b.model},
		DerivedFrom: b.refs(from...)}
}

// put adds an Observation under a fullUrl made from its key.
func (b *builder) put(key string, o *Observation) {
	url := b.entryURL(key)
	b.urls[key] = url
	b.add(url, o)
}

// refs are references to the entries with the keys, those the Bundle has.
func (b *builder) refs(keys ...string) []Reference {
	var out []Reference
	for _, k := range keys {
		if url, ok := b.urls[k]; ok {
			out = append(out, Reference{url})
		}
	}
	return out
}

// namespace makes the name-based (version 5) UUIDs of Observations.
var namespace = uuid.MustParse("0b5f8f2e-6c1d-4e0a-9d8c-7a3e2f1b4c5d")

// entryURL is an Observation's fullUrl: a UUID named by its record, event
// and key, so the same record makes the same Bundle.
func (b *builder) entryURL(key string) string {
	name := strings.Join([]string{b.rec.Key.ClientID, uuidOf(b.rec), valueOf(b.rec.Fields.AssessmentType), string(b.dt), key}, "\x00")
	return "urn:uuid:" + uuid.NewSHA1(namespace, []byte(name)).String()
}

// patientURL is the Patient's fullUrl: its patientUUID.
func patientURL(rec record.Record) string {
	if id := uuidOf(rec); id != "" {
		return "urn:uuid:" + id
	}
	return "urn:uuid:" + uuid.NewSHA1(namespace, []byte("patient\x00"+rec.Key.ClientID+"\x00"+rec.Key.AssessmentType)).String()
}

func uuidOf(rec record.Record) string {
	if rec.Fields.PatientUUID != nil {
		return strings.ToLower(*rec.Fields.PatientUUID)
	}
	return strings.ToLower(rec.Key.PatientUUID)
}

// patientOf builds the Patient from the record's identity fields; the
// birth date only when it stands beside the age the scores read
// (score.BirthDate), at the assessment's time at.
func patientOf(f record.Fields, at time.Time) *Patient {
	p := &Patient{ResourceType: "Patient"}
	if id := text(f.PatientUUID); id != "" {
		p.Identifier = []Identifier{{System: PatientIdentifierSystem, Value: strings.ToLower(id)}}
	}
	if family, given := text(f.LastName), text(f.FirstName); family != "" || given != "" {
		n := HumanName{Family: family}
		if given != "" {
			n.Given = []string{given}
		}
		p.Name = []HumanName{n}
	}
	if v := text(f.PhoneNumber); v != "" {
		p.Telecom = append(p.Telecom, ContactPoint{System: "phone", Value: v})
	}
	if v := text(f.Email); v != "" {
		p.Telecom = append(p.Telecom, ContactPoint{System: "email", Value: v})
	}
	p.Gender = Gender(f.BiologicalSex)
	if d := score.BirthDate(f, at); d != nil {
		p.BirthDate = *d
	}
	if a := (Address{City: text(f.City), State: text(f.State), PostalCode: text(f.ZipCode)}); a != (Address{}) {
		p.Address = []Address{a}
	}
	return p
}

// Gender maps biologicalSex to FHIR's administrative gender: male
// (male, m), female (female, f), unknown (unknown, u), and other for any
// other value given; "" when none is given.
func Gender(sex *string) string {
	s := strings.ToLower(text(sex))
	switch s {
	case "":
		return ""
	case "male", "m":
		return "male"
	case "female", "f":
		return "female"
	case "unknown", "u":
		return "unknown"
	}
	return "other"
}

func concept(m measure) CodeableConcept { return CodeableConcept{Coding: m.codings, Text: m.text} }

func quantity(m measure, v float64) *Quantity {
	return &Quantity{Value: v, Unit: m.display, System: UCUM, Code: m.unit}
}

// interpretation carries a category of a score (a red flag included) as
// text: pads' categories are its own words, not HL7 codes.
func interpretation(category *string) []CodeableConcept {
	if category == nil {
		return nil
	}
	return []CodeableConcept{{Text: *category}}
}

func assessedAt(rec record.Record, at time.Time) time.Time {
	if !rec.AssessmentCompletedAt.IsZero() {
		return rec.AssessmentCompletedAt
	}
	return at
}

// dateTime writes t as a FHIR dateTime (and instant) in UTC, to the
// millisecond.
func dateTime(t time.Time) string { return t.UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano) }

func inchesToCm(in *float64) *float64 {
	if in == nil {
		return nil
	}
	return new(*in * score.CmPerInch)
}

// roundTo rounds v to 1/per (per 100: two decimals), half up.
func roundTo(v *float64, per float64) *float64 {
	if v == nil {
		return nil
	}
	return new(math.Round(*v*per+1e-9) / per)
}

// text is a string field's value with surrounding space trimmed: FHIR
// strings hold no empty value.
func text(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

func valueOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// code makes a FHIR code of a free-text value: FHIR codes hold no leading,
// trailing or repeated whitespace, so runs of it become one space.
func code(s *string) string { return strings.Join(strings.Fields(valueOf(s)), " ") }
