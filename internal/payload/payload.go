// Package payload turns a stored record into the two outbound payloads of
// the product contract: non-sensitive (identity) and sensitive (health
// results). It is pure: no I/O, no clock of its own.
//
// Every field of the seed's outbound tables is always present, null when it
// cannot be given; nothing else of the record appears, and a non-sensitive
// payload carries no health field.
package payload

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/score"
)

// NonSensitive is the seed's "Outbound non-sensitive payload", in its order.
type NonSensitive struct {
	AssessmentType *string  `json:"assessmentType"`
	FunnelID       *string  `json:"funnelID"`
	UUID           *string  `json:"uuid"`
	Email          *string  `json:"email"`
	FirstName      *string  `json:"firstName"`
	LastName       *string  `json:"lastName"`
	PhoneNumber    *string  `json:"phoneNumber"`
	ZipCode        *string  `json:"zipCode"`
	BiologicalSex  *string  `json:"biologicalSex"`
	Age            *float64 `json:"age"`
	DateOfBirth    *string  `json:"dateOfBirth"`
	City           *string  `json:"city"`
	State          *string  `json:"state"`
	IPAddress      *string  `json:"IPAddress"`
	ContactConsent *bool    `json:"contactConsent"`
	FormCompleted  *bool    `json:"formCompleted"`
}

// Sensitive is the seed's "Outbound sensitive payload", in its order.
type Sensitive struct {
	AssessmentType *string `json:"assessmentType"`
	FunnelID       *string `json:"funnelID"`
	UUID           *string `json:"uuid"`
	Email          *string `json:"email"`

	HealthCreditScore       *float64 `json:"healthCreditScore"`
	SystolicBloodPressure   *float64 `json:"systolicBloodPressure"`
	DiastolicBloodPressure  *float64 `json:"diastolicBloodPressure"`
	HeartRateBpm            *float64 `json:"heartRateBpm"`
	HeartRateVariabilityMs  *float64 `json:"heartRateVariabilityMs"`
	BreathingRateBpm        *float64 `json:"breathingRateBpm"`
	OxygenSaturationPercent *float64 `json:"oxygenSaturationPercent"`
	Weight                  *float64 `json:"weight"`
	Age                     *float64 `json:"age"`

	ActivityScore         *float64 `json:"activityScore"`
	ActivityScoreMax      float64  `json:"activityScoreMax"`
	SleepScore            *float64 `json:"sleepScore"`
	SleepScoreMax         float64  `json:"sleepScoreMax"`
	EquilibriumScore      *float64 `json:"equilibriumScore"`
	EquilibriumScoreMax   float64  `json:"equilibriumScoreMax"`
	MetabolismScore       *float64 `json:"metabolismScore"`
	MetabolismScoreMax    float64  `json:"metabolismScoreMax"`
	OverallHealthScore    *float64 `json:"overallHealthScore"`
	OverallHealthScoreMax float64  `json:"overallHealthScoreMax"`
	RelaxationScore       *float64 `json:"relaxationScore"`
	RelaxationScoreMax    float64  `json:"relaxationScoreMax"`

	HealthCreditCategory         *string `json:"healthCreditCategory"`
	BloodPressureCategory        *string `json:"bloodPressureCategory"`
	HeartRateCategory            *string `json:"heartRateCategory"`
	HeartRateVariabilityCategory *string `json:"heartRateVariabilityCategory"`
	BreathingRateCategory        *string `json:"breathingRateCategory"`
	OxygenSaturationCategory     *string `json:"oxygenSaturationCategory"`
	ActivityCategory             *string `json:"activityCategory"`
	SleepCategory                *string `json:"sleepCategory"`
	EquilibriumCategory          *string `json:"equilibriumCategory"`
	MetabolismCategory           *string `json:"metabolismCategory"`
	OverallHealthCategory        *string `json:"overallHealthCategory"`
	RelaxationCategory           *string `json:"relaxationCategory"`

	StressIndex  *string `json:"stressIndex"`
	Sex          *string `json:"sex"`
	Height       *string `json:"height"`
	SmokerStatus *string `json:"smokerStatus"`
	Diabetic     *string `json:"diabetic"`
	Hypertension *string `json:"hypertension"`
	BPMedication *string `json:"bpMedication"`

	AssessmentCompleted *bool `json:"assessmentCompleted"`

	// Additive fields (pads-score-3), after the seed's: every flag of the
	// results as data, why scores are withheld (null when they are not),
	// the model's intended-use caveats, and the model's version.
	Flags           []Flag    `json:"flags"`
	ResultsWithheld *Withheld `json:"resultsWithheld"`
	Caveats         []Caveat  `json:"caveats"`
	Model           string    `json:"model"`
}

// Flag is one finding or red flag of the results: a stable code, its
// severity (mild, moderate, severe: severe is a red flag), the text to
// show, the guideline behind its threshold, its HL7 v3
// ObservationInterpretation code (H, L, HH, LL, A, AA; the FHIR Bundle
// carries the same) and whether it sends the person to a clinician.
type Flag struct {
	Code           string `json:"code"`
	Severity       string `json:"severity"`
	Text           string `json:"text"`
	Guideline      string `json:"guideline"`
	Interpretation string `json:"interpretation"`
	SeeClinician   bool   `json:"seeClinician"`
	// Reading is the value that raised the flag as its rule read it, with
	// its unit ("95 %", "250 mg/dL", "200/125 mmHg"); "declared" for a
	// declared condition.
	Reading string `json:"reading"`
}

// Withheld says why the payload has no scores: a stable reason code
// (age-contradictory, age-unknown, under-18, contradictory-measurements,
// insufficient-measurements), its text, and the fields concerned.
type Withheld struct {
	Reason string   `json:"reason"`
	Text   string   `json:"text"`
	Fields []string `json:"fields"`
}

// Caveat is one limit of the model's intended use: a code and its text.
type Caveat struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// Model is the version of the scoring model whose results the sensitive
// payload carries; it goes out with every delivery.
const Model = score.Version

// Encode returns the JSON payload of data type dt for rec, made at the
// record's last update, and the model that made it. It is what the save
// service snapshots into each event.
func Encode(dt record.DataType, rec record.Record) (body []byte, model string, err error) {
	body, err = json.Marshal(For(dt, rec, rec.UpdatedAt))
	return body, Model, err
}

// For builds the payload of data type dt. at is when the payload is made;
// age is computed at the assessment's completion when the record has one.
func For(dt record.DataType, rec record.Record, at time.Time) any {
	if dt.Results() {
		return BuildSensitive(rec, at)
	}
	return BuildNonSensitive(rec, at)
}

// Update is the seed-json body of a results-updated event: the sensitive
// payload of the new results, every field of it, and the message id
// (webhook-id) of the earlier delivery of results to the same destination
// that it updates (null when pads knows none, as in an export).
type Update struct {
	Sensitive
	UpdatesMessageID *string `json:"updatesMessageId"`
}

// BuildNonSensitive makes the non-sensitive payload of rec.
func BuildNonSensitive(rec record.Record, at time.Time) NonSensitive {
	f := rec.Fields
	return NonSensitive{
		AssessmentType: f.AssessmentType,
		FunnelID:       f.FunnelID,
		UUID:           f.PatientUUID,
		Email:          f.Email,
		FirstName:      f.FirstName,
		LastName:       f.LastName,
		PhoneNumber:    f.PhoneNumber,
		ZipCode:        f.ZipCode,
		BiologicalSex:  f.BiologicalSex,
		Age:            age(f, assessedAt(rec, at)),
		DateOfBirth:    score.BirthDate(f, assessedAt(rec, at)),
		City:           f.City,
		State:          f.State,
		IPAddress:      f.IPAddress,
		ContactConsent: f.ContactConsent,
		FormCompleted:  f.FormCompleted,
	}
}

// BuildSensitive makes the sensitive payload of rec: its measurements and
// the scoring model's results. Every measurement the model reads is shown
// as the model read it (score.FromRecord: one source order each, and
// implausible body measurements left out), so the payload never shows a
// value its scores did not use.
func BuildSensitive(rec record.Record, at time.Time) Sensitive {
	f := rec.Fields
	in := score.FromRecord(f, assessedAt(rec, at))
	r := score.Compute(in)
	return sensitive(rec, in, r, Model)
}

// FromStored builds the payload of data type dt from what an event stored
// (internal/snapshot): the record, when the event was raised, and the
// model's inputs and results then, with the model's version. It never runs
// the model: a retry or a replay sends the results the save computed.
func FromStored(dt record.DataType, rec record.Record, at time.Time, in score.Inputs, r score.Result, model string) any {
	if dt.Results() {
		return sensitive(rec, in, r, model)
	}
	return BuildNonSensitive(rec, at)
}

// Results are the results the sensitive payload of rec made at at
// carries (and its FHIR Bundle): two saves whose Results are Equal told a
// receiver the same thing.
func Results(rec record.Record, at time.Time) score.Result {
	return score.Compute(score.FromRecord(rec.Fields, assessedAt(rec, at)))
}

func sensitive(rec record.Record, in score.Inputs, r score.Result, model string) Sensitive {
	f := rec.Fields
	return Sensitive{
		AssessmentType: f.AssessmentType,
		FunnelID:       f.FunnelID,
		UUID:           f.PatientUUID,
		Email:          f.Email,

		HealthCreditScore:       r.HealthCredit,
		SystolicBloodPressure:   in.Systolic,
		DiastolicBloodPressure:  in.Diastolic,
		HeartRateBpm:            in.HeartRate,
		HeartRateVariabilityMs:  in.HRV,
		BreathingRateBpm:        in.BreathingRate,
		OxygenSaturationPercent: in.SpO2,
		Weight:                  pounds(in.WeightLb),
		Age:                     in.Age,

		ActivityScore: r.Activity, ActivityScoreMax: score.Max,
		SleepScore: r.Sleep, SleepScoreMax: score.Max,
		EquilibriumScore: r.Equilibrium, EquilibriumScoreMax: score.Max,
		MetabolismScore: r.Metabolism, MetabolismScoreMax: score.Max,
		OverallHealthScore: r.Overall, OverallHealthScoreMax: score.Max,
		RelaxationScore: r.Relaxation, RelaxationScoreMax: score.Max,

		HealthCreditCategory:         r.HealthCreditCategory,
		BloodPressureCategory:        r.BloodPressureCategory,
		HeartRateCategory:            r.HeartRateCategory,
		HeartRateVariabilityCategory: r.HeartRateVariabilityCategory,
		BreathingRateCategory:        r.BreathingRateCategory,
		OxygenSaturationCategory:     r.OxygenSaturationCategory,
		ActivityCategory:             r.ActivityCategory,
		SleepCategory:                r.SleepCategory,
		EquilibriumCategory:          r.EquilibriumCategory,
		MetabolismCategory:           r.MetabolismCategory,
		OverallHealthCategory:        r.OverallHealthCategory,
		RelaxationCategory:           r.RelaxationCategory,

		StressIndex:  r.StressIndex,
		Sex:          f.BiologicalSex,
		Height:       feetAndInches(in.HeightIn),
		SmokerStatus: in.SmokerStatus,
		Diabetic:     yesNo(f.Diabetic),
		Hypertension: yesNo(f.Hypertension),
		BPMedication: yesNo(f.HypertensionMedication),

		AssessmentCompleted: f.AssessmentCompleted,

		Flags:           flags(r.Flags),
		ResultsWithheld: withheld(r.Withheld),
		Caveats:         caveatsOf(r),
		Model:           model,
	}
}

func age(f record.Fields, at time.Time) *float64 {
	a, _ := score.Age(f, at)
	return a
}

// flags is the results' flags as the payload carries them: an empty
// array, never null, when there are none.
func flags(fs []score.Flag) []Flag {
	out := make([]Flag, len(fs))
	for i, f := range fs {
		out[i] = Flag{Code: f.ID, Severity: f.Severity.String(), Text: f.Label, Guideline: f.Guideline,
			Interpretation: f.Interpretation, SeeClinician: f.SeeClinician, Reading: f.Reading}
	}
	return out
}

func withheld(w *score.Withheld) *Withheld {
	if w == nil {
		return nil
	}
	return &Withheld{Reason: w.Reason, Text: w.Text(), Fields: w.Fields}
}

// caveats and partialCaveats are score.CaveatsOf as the payload carries
// them, made once: the caveats of every payload, and those of a partial
// verdict (score.CaveatPartial added).
var caveats, partialCaveats = payloadCaveats(score.Result{}), payloadCaveats(score.Result{Partial: true})

func payloadCaveats(r score.Result) []Caveat {
	cs := score.CaveatsOf(r)
	out := make([]Caveat, len(cs))
	for i, c := range cs {
		out[i] = Caveat(c)
	}
	return out
}

func caveatsOf(r score.Result) []Caveat {
	if r.Partial {
		return partialCaveats
	}
	return caveats
}

// assessedAt is when the assessment completed, or at if it has not.
func assessedAt(rec record.Record, at time.Time) time.Time {
	if !rec.AssessmentCompletedAt.IsZero() {
		return rec.AssessmentCompletedAt
	}
	return at
}

// WeightLb is the weight the model reads (score.BodyOf), in pounds to one
// decimal: weightLb, else weightKg × 2.20462; null when unknown or left
// out as implausible.
func WeightLb(f record.Fields) *float64 { return pounds(score.BodyOf(f).WeightLb) }

func pounds(lb *float64) *float64 {
	if lb == nil {
		return nil
	}
	return new(math.Round(*lb*10+1e-9) / 10)
}

// Height is the height the model reads (score.BodyOf) as feet and inches,
// like 5'10": rounded to the whole inch, 12 inches carrying to a foot;
// null when unknown or left out as implausible.
func Height(f record.Fields) *string { return feetAndInches(score.BodyOf(f).HeightIn) }

func feetAndInches(in *float64) *string {
	if in == nil {
		return nil
	}
	total := int(math.Round(*in + 1e-9))
	return new(fmt.Sprintf(`%d'%d"`, total/12, total%12))
}

// SmokerStatus is the smoking status the model reads (score.Smoking):
// smokerRiskStatus normalised (score.SmokingStatus: a text of no known
// meaning is "Unknown", never shown as given) or "Current smoker" /
// "Non-smoker" from smoker, whichever was given last.
func SmokerStatus(f record.Fields) *string {
	_, shown := score.Smoking(f)
	return shown
}

func yesNo(b *bool) *string {
	switch {
	case b == nil:
		return nil
	case *b:
		return new("Yes")
	}
	return new("No")
}
