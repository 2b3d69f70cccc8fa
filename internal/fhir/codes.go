package fhir

// Code systems and naming systems. The pads URIs are stable names, not
// pages to fetch: a receiver matches on them (docs/delivery.md lists them).
const (
	LOINC = "http://loinc.org"
	UCUM  = "http://unitsofmeasure.org"
	// ObservationCategory is HL7's code system of Observation categories.
	ObservationCategory = "http://terminology.hl7.org/CodeSystem/observation-category"

	// PatientIdentifierSystem names the Patient identifier whose value is
	// the record's patientUUID.
	PatientIdentifierSystem = "https://pads.dev/fhir/patient-uuid"
	// ScoreSystem codes pads' scores; the codes are the seed payload's
	// field names (overallHealthScore, ...).
	ScoreSystem = "https://pads.dev/fhir/CodeSystem/score"
	// MeasurementSystem codes the measurements LOINC has no code for
	// (RMSSD).
	MeasurementSystem = "https://pads.dev/fhir/CodeSystem/measurement"
	// ModelSystem codes the scoring model version that made a score
	// (Observation.method).
	ModelSystem = "https://pads.dev/fhir/CodeSystem/model"
	// MethodSystem codes how a measurement was obtained
	// (Observation.method): camera-estimate or client-reported.
	MethodSystem = "https://pads.dev/fhir/CodeSystem/method"
	// FlagSystem codes the model's findings and red flags (Flag.code): the
	// codes of the seed payload's flags array.
	FlagSystem = "https://pads.dev/fhir/CodeSystem/flag"
	// WithheldSystem codes why scores are withheld, beside HL7's
	// data-absent-reason: the payload's resultsWithheld.reason.
	WithheldSystem = "https://pads.dev/fhir/CodeSystem/results-withheld"
	// GuidelineExtension names the guideline behind a Flag's threshold.
	GuidelineExtension = "https://pads.dev/fhir/StructureDefinition/guideline"
	// SeeClinicianExtension (valueBoolean) is the JSON flag's
	// seeClinician: true when the flag asks for a clinician.
	SeeClinicianExtension = "https://pads.dev/fhir/StructureDefinition/see-clinician"
	// ReadingExtension (valueString) is the JSON flag's reading: the
	// value that raised the flag, with its unit.
	ReadingExtension = "https://pads.dev/fhir/StructureDefinition/flag-reading"

	// HL7 code systems and extensions.
	InterpretationSystem = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation"
	DataAbsentReason     = "http://terminology.hl7.org/CodeSystem/data-absent-reason"
	FlagCategory         = "http://terminology.hl7.org/CodeSystem/flag-category"
	FlagPriority         = "http://hl7.org/fhir/StructureDefinition/flag-priority"
	FlagPriorityCode     = "http://hl7.org/fhir/flag-priority-code"
	// EventSystem, AssessmentTypeSystem and FunnelSystem code the Bundle's
	// tags: the event that made it, the record's assessment type and funnel.
	EventSystem          = "https://pads.dev/fhir/CodeSystem/event"
	AssessmentTypeSystem = "https://pads.dev/fhir/CodeSystem/assessment-type"
	FunnelSystem         = "https://pads.dev/fhir/CodeSystem/funnel"
	// UpdatesSystem codes the tag of a results-updated Bundle that names
	// the message id (webhook-id) of the earlier delivery of results to
	// the same destination, which the Bundle's results replace.
	UpdatesSystem = "https://pads.dev/fhir/CodeSystem/updates-message"
)

// A measure is one kind of measurement Observation: its codes and unit.
type measure struct {
	key     string   // names its entry, for references and fullUrls
	codings []Coding // LOINC first (pads' own code when LOINC has none)
	text    string
	unit    string // UCUM code
	display string // unit as shown
}

// The measurements, in the order a Bundle lists them. Every code is LOINC
// but RMSSD's (docs/delivery.md says why).
var (
	heartRate = measure{"heart-rate", []Coding{{LOINC, "8867-4", "Heart rate"}}, "Heart rate", "/min", "beats/minute"}
	// bloodPressure is a panel: systolic and diastolic are its components.
	bloodPressure = measure{key: "blood-pressure", codings: []Coding{{LOINC, "85354-9", "Blood pressure panel with all children optional"}},
		text: "Blood pressure"}
	systolic      = measure{"systolic", []Coding{{LOINC, "8480-6", "Systolic blood pressure"}}, "Systolic blood pressure", "mm[Hg]", "mmHg"}
	diastolic     = measure{"diastolic", []Coding{{LOINC, "8462-4", "Diastolic blood pressure"}}, "Diastolic blood pressure", "mm[Hg]", "mmHg"}
	breathingRate = measure{"respiratory-rate", []Coding{{LOINC, "9279-1", "Respiratory rate"}}, "Respiratory rate", "/min", "breaths/minute"}
	// oxygenSaturation is 2708-6, the code the R4 vital signs profile asks
	// for, which names no method: 59408-5 ("by Pulse oximetry") would claim
	// an oximeter pads did not use (docs/delivery.md).
	// SpO2: the R4 vital-signs profile's code, without LOINC's display
	// ("...in Arterial blood"), which would claim a specimen pads never
	// had; code.text says what the value is.
	oxygenSaturation = measure{"oxygen-saturation", []Coding{{System: LOINC, Code: "2708-6"}},
		"Oxygen saturation (camera-based estimate)", "%", "%"}
	bodyWeight = measure{"body-weight", []Coding{{LOINC, "29463-7", "Body weight"}}, "Body weight", "kg", "kg"}
	bodyHeight = measure{"body-height", []Coding{{LOINC, "8302-2", "Body height"}}, "Body height", "cm", "cm"}
	bmi        = measure{"bmi", []Coding{{LOINC, "39156-5", "Body mass index (BMI) [Ratio]"}}, "Body mass index", "kg/m2", "kg/m2"}
	// HRV: SDNN has a LOINC code; RMSSD has none, so it is pads' own.
	hrvSDNN  = measure{"hrv", []Coding{{LOINC, "80404-7", "R-R interval.standard deviation (Heart rate variability)"}}, "Heart rate variability (SDNN)", "ms", "ms"}
	hrvRMSSD = measure{"hrv", []Coding{{MeasurementSystem, "rmssd", "Heart rate variability, RMSSD"}}, "Heart rate variability (RMSSD)", "ms", "ms"}
)

// vitalSigns is the category of every measurement Observation.
var vitalSigns = []CodeableConcept{{Coding: []Coding{{ObservationCategory, "vital-signs", "Vital Signs"}}, Text: "Vital Signs"}}

// A scoreKind is one of the model's scores, coded in ScoreSystem by the
// seed payload's field name.
type scoreKind struct {
	code    string
	display string
}

var (
	healthCreditScore  = scoreKind{"healthCreditScore", "Health credit score (300-850)"}
	overallHealthScore = scoreKind{"overallHealthScore", "Overall health score (0-100)"}
	activityScore      = scoreKind{"activityScore", "Activity score (0-100)"}
	sleepScore         = scoreKind{"sleepScore", "Sleep score (0-100)"}
	equilibriumScore   = scoreKind{"equilibriumScore", "Equilibrium score (0-100)"}
	metabolismScore    = scoreKind{"metabolismScore", "Metabolism score (0-100)"}
	relaxationScore    = scoreKind{"relaxationScore", "Relaxation score (0-100)"}
	stressIndex        = scoreKind{"stressIndex", "Stress index"}
)
