package receiver

import "encoding/json"

// The code systems of pads' Bundles (docs/delivery.md, "FHIR R4").
const (
	LOINC                   = "http://loinc.org"
	PatientIdentifierSystem = "https://pads.dev/fhir/patient-uuid"
	ScoreSystem             = "https://pads.dev/fhir/CodeSystem/score"
	EventSystem             = "https://pads.dev/fhir/CodeSystem/event"
	FlagSystem              = "https://pads.dev/fhir/CodeSystem/flag"
	// UpdatesSystem tags a results-updated Bundle with the message id of
	// the earlier delivery whose results it replaces (Bundle.Updates).
	UpdatesSystem = "https://pads.dev/fhir/CodeSystem/updates-message"
)

// Bundle is a FHIR R4 Bundle as pads sends it: a collection whose first
// entry is the Patient, followed, in a sensitive Bundle, by Observations.
// Entries keep their resource as JSON: Patient and Observations decode
// them.
type Bundle struct {
	ResourceType string `json:"resourceType"`
	Meta         struct {
		Tag []Coding `json:"tag,omitempty"`
	} `json:"meta"`
	Type      string  `json:"type"`
	Timestamp string  `json:"timestamp,omitempty"`
	Entry     []Entry `json:"entry,omitempty"`
}

// Entry is one resource of a Bundle under its fullUrl (a urn:uuid).
type Entry struct {
	FullURL  string          `json:"fullUrl"`
	Resource json.RawMessage `json:"resource"`
}

// Event is the Bundle's pads event tag: EventNonSensitive,
// EventSensitive or EventResultsUpdated; "" when it has none.
func (b *Bundle) Event() string { return b.tag(EventSystem) }

// Updates is the message id a results-updated Bundle's tag names: the
// earlier delivery whose results it replaces; "" when it has none.
func (b *Bundle) Updates() string { return b.tag(UpdatesSystem) }

func (b *Bundle) tag(system string) string {
	for _, t := range b.Meta.Tag {
		if t.System == system {
			return t.Code
		}
	}
	return ""
}

// Patient returns the Bundle's Patient.
func (b *Bundle) Patient() (*Patient, error) {
	for _, e := range b.Entry {
		var p Patient
		if err := json.Unmarshal(e.Resource, &p); err != nil {
			return nil, err
		}
		if p.ResourceType == "Patient" {
			return &p, nil
		}
	}
	return nil, ErrNotPads
}

// Observations returns the Bundle's Observations in order: measurements,
// then scores.
func (b *Bundle) Observations() ([]Observation, error) {
	var out []Observation
	for _, e := range b.Entry {
		var o Observation
		if err := json.Unmarshal(e.Resource, &o); err != nil {
			return nil, err
		}
		if o.ResourceType == "Observation" {
			o.FullURL = e.FullURL
			out = append(out, o)
		}
	}
	return out, nil
}

// Patient is the FHIR Patient pads sends.
type Patient struct {
	ResourceType string         `json:"resourceType"`
	Identifier   []Identifier   `json:"identifier,omitempty"`
	Name         []HumanName    `json:"name,omitempty"`
	Telecom      []ContactPoint `json:"telecom,omitempty"`
	Gender       string         `json:"gender,omitempty"`
	BirthDate    string         `json:"birthDate,omitempty"`
	Address      []Address      `json:"address,omitempty"`
}

// UUID is the patient's uuid in pads (its PatientIdentifierSystem
// identifier), as the seed payloads' uuid.
func (p *Patient) UUID() string {
	for _, id := range p.Identifier {
		if id.System == PatientIdentifierSystem {
			return id.Value
		}
	}
	return ""
}

// Observation is a FHIR Observation pads sends: a measurement (category
// vital-signs, a LOINC code) or a score of its model (ScoreSystem).
type Observation struct {
	FullURL           string            `json:"-"` // its entry's
	ResourceType      string            `json:"resourceType"`
	Status            string            `json:"status"`
	Category          []CodeableConcept `json:"category,omitempty"`
	Code              CodeableConcept   `json:"code"`
	Subject           *Reference        `json:"subject,omitempty"`
	EffectiveDateTime string            `json:"effectiveDateTime,omitempty"`
	ValueQuantity     *Quantity         `json:"valueQuantity,omitempty"`
	ValueString       string            `json:"valueString,omitempty"`
	DataAbsentReason  *CodeableConcept  `json:"dataAbsentReason,omitempty"` // why a score is withheld
	Interpretation    []CodeableConcept `json:"interpretation,omitempty"`
	Note              []Annotation      `json:"note,omitempty"`
	Method            *CodeableConcept  `json:"method,omitempty"`
	DerivedFrom       []Reference       `json:"derivedFrom,omitempty"`
	Component         []Component       `json:"component,omitempty"`
}

// CodeIn returns the Observation's code in system ("" when it has none
// there): CodeIn(LOINC) is "8867-4" for a heart rate.
func (o *Observation) CodeIn(system string) string {
	for _, c := range o.Code.Coding {
		if c.System == system {
			return c.Code
		}
	}
	return ""
}

// Flags returns the Bundle's Flags in order: one per finding of pads'
// model, most severe first.
func (b *Bundle) Flags() ([]Flag, error) {
	var out []Flag
	for _, e := range b.Entry {
		var f Flag
		if err := json.Unmarshal(e.Resource, &f); err != nil {
			return nil, err
		}
		if f.ResourceType == "Flag" {
			out = append(out, f)
		}
	}
	return out, nil
}

// Flag is a FHIR Flag pads sends: a finding of its model, coded in
// FlagSystem, with its severity in the flag-priority extension (PH a red
// flag, PM moderate, PL mild).
type Flag struct {
	ResourceType string            `json:"resourceType"`
	Extension    []Extension       `json:"extension,omitempty"`
	Status       string            `json:"status"`
	Category     []CodeableConcept `json:"category,omitempty"`
	Code         CodeableConcept   `json:"code"`
	Subject      Reference         `json:"subject"`
	Period       *Period           `json:"period,omitempty"`
}

// Extension is a FHIR extension: the flag's priority, its guideline,
// whether it asks for a clinician (valueBoolean), or its reading.
type Extension struct {
	URL                  string           `json:"url"`
	ValueCodeableConcept *CodeableConcept `json:"valueCodeableConcept,omitempty"`
	ValueString          string           `json:"valueString,omitempty"`
	ValueBoolean         *bool            `json:"valueBoolean,omitempty"`
}

// Period is when a Flag started.
type Period struct {
	Start string `json:"start,omitempty"`
}

// Annotation is a note: the caveats of an estimate or of the model.
type Annotation struct {
	Text string `json:"text"`
}

// Component is a part of an Observation (systolic, diastolic).
type Component struct {
	Code          CodeableConcept `json:"code"`
	ValueQuantity *Quantity       `json:"valueQuantity,omitempty"`
}

// Identifier is a business identifier.
type Identifier struct {
	System string `json:"system"`
	Value  string `json:"value"`
}

// HumanName is a name.
type HumanName struct {
	Family string   `json:"family,omitempty"`
	Given  []string `json:"given,omitempty"`
}

// ContactPoint is a phone number or an email address.
type ContactPoint struct {
	System string `json:"system"`
	Value  string `json:"value"`
}

// Address is a city, state and postal code.
type Address struct {
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	PostalCode string `json:"postalCode,omitempty"`
}

// CodeableConcept is codes and text.
type CodeableConcept struct {
	Coding []Coding `json:"coding,omitempty"`
	Text   string   `json:"text,omitempty"`
}

// Coding is a code in a system.
type Coding struct {
	System  string `json:"system"`
	Code    string `json:"code"`
	Display string `json:"display,omitempty"`
}

// Quantity is a value with its UCUM unit.
type Quantity struct {
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	System string  `json:"system"`
	Code   string  `json:"code"`
}

// Reference is another entry's fullUrl.
type Reference struct {
	Reference string `json:"reference"`
}
