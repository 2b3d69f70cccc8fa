package fhir

import (
	"strings"

	"github.com/pads-dev/pads/internal/score"
)

// interpretationDisplay names the HL7 v3 ObservationInterpretation codes
// pads uses.
var interpretationDisplay = map[string]string{
	score.High: "High", score.Low: "Low", score.CriticalHigh: "Critical high", score.CriticalLow: "Critical low",
	score.Abnormal: "Abnormal", score.CriticalAbnormal: "Critical abnormal",
}

// ObservedBy names the measurement Observation that carries the
// interpretation of flags about m, by its entry key; "" when no
// Observation does (answers and risk numbers: their Flag resources carry
// them).
func ObservedBy(m score.Measurement) string {
	switch m {
	case score.BloodPressure:
		return bloodPressure.key
	case score.HeartRateReading, score.Rhythm:
		return heartRate.key
	case score.BreathingRate:
		return breathingRate.key
	case score.OxygenSaturation:
		return oxygenSaturation.key
	case score.BodyMassIndex:
		return bmi.key
	}
	return ""
}

// interpretations are a measurement's interpretations: its category as
// text when no flag names it, then one coded concept per HL7 code of the
// flags about it (the flags' texts as its text).
func interpretations(category *string, flags []score.Flag, key string) []CodeableConcept {
	var out []CodeableConcept
	var labels []string
	var codes []string
	for _, f := range flags {
		if ObservedBy(f.Measurement) != key {
			continue
		}
		labels = append(labels, f.Label)
		if !contains(codes, f.Interpretation) {
			codes = append(codes, f.Interpretation)
		}
	}
	if category != nil && !contains(labels, *category) {
		out = append(out, CodeableConcept{Text: *category})
	}
	for _, c := range codes {
		var texts []string
		for _, f := range flags {
			if ObservedBy(f.Measurement) == key && f.Interpretation == c {
				texts = append(texts, f.Label)
			}
		}
		out = append(out, CodeableConcept{Coding: []Coding{{InterpretationSystem, c, interpretationDisplay[c]}}, Text: strings.Join(texts, "; ")})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// flagPriority maps a severity to the flag-priority extension's codes:
// severe (a red flag) high, moderate medium, mild low.
var flagPriority = map[score.Severity]Coding{
	score.Severe:   {FlagPriorityCode, "PH", "High priority"},
	score.Moderate: {FlagPriorityCode, "PM", "Medium priority"},
	score.Mild:     {FlagPriorityCode, "PL", "Low priority"},
}

// flagResource is the Flag of one finding of the model.
func (b *builder) flagResource(f score.Flag) *Flag {
	prio := flagPriority[f.Severity]
	return &Flag{ResourceType: "Flag",
		Extension: []Extension{
			{URL: FlagPriority, ValueCodeableConcept: &CodeableConcept{Coding: []Coding{prio}, Text: f.Severity.String()}},
			{URL: GuidelineExtension, ValueString: f.Guideline},
		},
		Status:   "active",
		Category: []CodeableConcept{{Coding: []Coding{{FlagCategory, "clinical", "Clinical"}}, Text: "Clinical"}},
		Code:     CodeableConcept{Coding: []Coding{{FlagSystem, f.ID, f.Label}}, Text: f.Label},
		Subject:  Reference{b.patient},
		Period:   &Period{Start: b.effective},
	}
}

// withheldReasons map pads' reasons to HL7's data-absent-reason codes.
var withheldReasons = map[string]Coding{
	score.AgeContradictory:          {DataAbsentReason, "error", "Error"},
	score.AgeUnknown:                {DataAbsentReason, "unknown", "Unknown"},
	score.Under18:                   {DataAbsentReason, "not-applicable", "Not Applicable"},
	score.ContradictoryMeasurements: {DataAbsentReason, "error", "Error"},
	score.InsufficientMeasurements:  {DataAbsentReason, "not-performed", "Not Performed"},
}

// absent is the dataAbsentReason of a score withheld for w: HL7's code and
// pads' own reason, with its text.
func absent(w *score.Withheld) *CodeableConcept {
	return &CodeableConcept{Coding: []Coding{withheldReasons[w.Reason], {WithheldSystem, w.Reason, w.Text()}}, Text: w.Text()}
}

// cameraEstimate is the method of every vital sign pads receives from a
// face scan; clientReported that of weight, height and BMI.
var (
	cameraEstimate = &CodeableConcept{Coding: []Coding{{MethodSystem, "camera-estimate", "Camera-based estimate (face scan)"}},
		Text: "Camera-based estimate from a face scan, not a measurement by a medical device"}
	clientReported = &CodeableConcept{Coding: []Coding{{MethodSystem, "client-reported", "Reported by the client"}},
		Text: "Reported by the client application (entered or computed there), not measured by pads"}
)

// caveatNotes are score.Caveats as notes; cameraNote the camera caveat
// alone.
var caveatNotes, cameraNote = func() ([]Annotation, []Annotation) {
	var all, camera []Annotation
	for _, c := range score.Caveats {
		all = append(all, Annotation{c.Text})
		if c.Code == "camera-estimate" {
			camera = append(camera, Annotation{c.Text})
		}
	}
	return all, camera
}()
