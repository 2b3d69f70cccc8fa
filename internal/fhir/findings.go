package fhir

import "github.com/pads-dev/pads/internal/score"

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
// text when no flag names it, then one coded concept per flag about it,
// in the order of the flags, its text the flag's: two flags with one HL7
// code (89/60 is both LL flags) are two concepts, so every JSON flag has
// its interpretation on the Observation.
func interpretations(category *string, flags []score.Flag, key string) []CodeableConcept {
	var out []CodeableConcept
	named := false
	for _, f := range flags {
		if ObservedBy(f.Measurement) != key {
			continue
		}
		named = named || category != nil && f.Label == *category
		out = append(out, CodeableConcept{Coding: []Coding{{InterpretationSystem, f.Interpretation, interpretationDisplay[f.Interpretation]}},
			Text: f.Label})
	}
	if category != nil && !named {
		out = append([]CodeableConcept{{Text: *category}}, out...)
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
	ext := []Extension{
		{URL: FlagPriority, ValueCodeableConcept: &CodeableConcept{Coding: []Coding{prio}, Text: f.Severity.String()}},
		{URL: GuidelineExtension, ValueString: f.Guideline},
		{URL: SeeClinicianExtension, ValueBoolean: &f.SeeClinician},
	}
	if f.Reading != "" {
		ext = append(ext, Extension{URL: ReadingExtension, ValueString: f.Reading})
	}
	return &Flag{ResourceType: "Flag",
		Extension: ext,
		Status:    "active",
		Category:  []CodeableConcept{{Coding: []Coding{{FlagCategory, "clinical", "Clinical"}}, Text: "Clinical"}},
		Code:      CodeableConcept{Coding: []Coding{{FlagSystem, f.ID, f.Label}}, Text: f.Label},
		Subject:   Reference{b.patient},
		Period:    &Period{Start: b.effective},
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
	// padsComputed is the method of a value pads computes from other
	// values of the Bundle (they are its derivedFrom).
	padsComputed = &CodeableConcept{Coding: []Coding{{MethodSystem, "pads-computed", "Computed by pads"}},
		Text: "Computed by pads from the reported values it is derived from"}
	// fromIbi is the method of a heart rate pads computes as 60000 / ibi,
	// the camera's mean inter-beat interval.
	fromIbi = &CodeableConcept{Coding: []Coding{{MethodSystem, "camera-estimate", "Camera-based estimate (face scan)"},
		{MethodSystem, "pads-computed", "Computed by pads"}},
		Text: "Computed by pads as 60000 / the mean inter-beat interval (ibi) of a face scan: a camera-based estimate"}
)

// heartRateMethod is the method of the heart rate the model read, by the
// field it came from: heartRateBpm a camera estimate; riskRestingHeartRate
// a number the client reports (its risk inputs); ibi computed by pads from
// the camera's inter-beat interval.
func heartRateMethod(from string) *CodeableConcept {
	switch from {
	case "riskRestingHeartRate":
		return clientReported
	case "ibi":
		return fromIbi
	}
	return cameraEstimate
}

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

// partialNotes are caveatNotes with score.CaveatPartial, for a partial
// verdict.
var partialNotes = append(caveatNotes[:len(caveatNotes):len(caveatNotes)], Annotation{score.CaveatPartial.Text})

// notesOf are the caveat notes of result r.
func notesOf(r score.Result) []Annotation {
	if r.Partial {
		return partialNotes
	}
	return caveatNotes
}
