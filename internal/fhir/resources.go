package fhir

// The FHIR R4 resources and data types pads writes, each with only the
// elements pads fills. An element without a value is left out (omitempty),
// as FHIR requires: FHIR JSON has no nulls and no empty strings, arrays or
// objects.

// Bundle is a FHIR R4 Bundle (http://hl7.org/fhir/R4/bundle.html).
type Bundle struct {
	ResourceType string  `json:"resourceType"` // "Bundle"
	Meta         *Meta   `json:"meta,omitempty"`
	Type         string  `json:"type"`
	Timestamp    string  `json:"timestamp,omitempty"`
	Entry        []Entry `json:"entry,omitempty"`
}

// Meta holds a resource's tags.
type Meta struct {
	Tag []Coding `json:"tag,omitempty"`
}

// Entry is one resource of a Bundle, named by its fullUrl (a urn:uuid),
// which references from other entries of the Bundle use.
type Entry struct {
	FullURL  string `json:"fullUrl"`
	Resource any    `json:"resource"` // *Patient, *Observation or *Flag
}

// Patient is a FHIR R4 Patient (http://hl7.org/fhir/R4/patient.html).
type Patient struct {
	ResourceType string         `json:"resourceType"` // "Patient"
	Identifier   []Identifier   `json:"identifier,omitempty"`
	Name         []HumanName    `json:"name,omitempty"`
	Telecom      []ContactPoint `json:"telecom,omitempty"`
	Gender       string         `json:"gender,omitempty"`
	BirthDate    string         `json:"birthDate,omitempty"`
	Address      []Address      `json:"address,omitempty"`
}

// Observation is a FHIR R4 Observation
// (http://hl7.org/fhir/R4/observation.html): a measurement, or a score of
// pads' model.
type Observation struct {
	ResourceType      string            `json:"resourceType"` // "Observation"
	Status            string            `json:"status"`
	Category          []CodeableConcept `json:"category,omitempty"`
	Code              CodeableConcept   `json:"code"`
	Subject           *Reference        `json:"subject,omitempty"`
	EffectiveDateTime string            `json:"effectiveDateTime,omitempty"`
	ValueQuantity     *Quantity         `json:"valueQuantity,omitempty"`
	ValueString       string            `json:"valueString,omitempty"`
	DataAbsentReason  *CodeableConcept  `json:"dataAbsentReason,omitempty"`
	Interpretation    []CodeableConcept `json:"interpretation,omitempty"`
	Note              []Annotation      `json:"note,omitempty"`
	Method            *CodeableConcept  `json:"method,omitempty"`
	DerivedFrom       []Reference       `json:"derivedFrom,omitempty"`
	Component         []Component       `json:"component,omitempty"`
}

// Flag is a FHIR R4 Flag (http://hl7.org/fhir/R4/flag.html): a finding of
// the model, as a clinician's inbox shows it. Its priority extension
// carries the finding's severity.
type Flag struct {
	ResourceType string            `json:"resourceType"` // "Flag"
	Extension    []Extension       `json:"extension,omitempty"`
	Status       string            `json:"status"`
	Category     []CodeableConcept `json:"category,omitempty"`
	Code         CodeableConcept   `json:"code"`
	Subject      Reference         `json:"subject"`
	Period       *Period           `json:"period,omitempty"`
}

// Extension is a FHIR extension with a coded or a string value.
type Extension struct {
	URL                  string           `json:"url"`
	ValueCodeableConcept *CodeableConcept `json:"valueCodeableConcept,omitempty"`
	ValueString          string           `json:"valueString,omitempty"`
	ValueBoolean         *bool            `json:"valueBoolean,omitempty"`
}

// Period is a time span; pads gives its start only.
type Period struct {
	Start string `json:"start,omitempty"`
}

// Annotation is a note on a resource.
type Annotation struct {
	Text string `json:"text"`
}

// Component is one part of an Observation (systolic and diastolic in a
// blood pressure panel).
type Component struct {
	Code          CodeableConcept `json:"code"`
	ValueQuantity *Quantity       `json:"valueQuantity,omitempty"`
}

// Identifier is a business identifier in a naming system.
type Identifier struct {
	System string `json:"system"`
	Value  string `json:"value"`
}

// HumanName is a person's name.
type HumanName struct {
	Family string   `json:"family,omitempty"`
	Given  []string `json:"given,omitempty"`
}

// ContactPoint is a phone number or an email address.
type ContactPoint struct {
	System string `json:"system"` // "phone" or "email"
	Value  string `json:"value"`
}

// Address is a postal address, of which pads knows at most the city, the
// state and the postal code.
type Address struct {
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	PostalCode string `json:"postalCode,omitempty"`
}

// CodeableConcept is a concept as codes and text.
type CodeableConcept struct {
	Coding []Coding `json:"coding,omitempty"`
	Text   string   `json:"text,omitempty"`
}

// Coding is one code in a code system.
type Coding struct {
	System  string `json:"system"`
	Code    string `json:"code"`
	Display string `json:"display,omitempty"`
}

// Quantity is a measured amount with its UCUM unit.
type Quantity struct {
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	System string  `json:"system"`
	Code   string  `json:"code"`
}

// Reference points at another entry of the Bundle by its fullUrl.
type Reference struct {
	Reference string `json:"reference"`
}
