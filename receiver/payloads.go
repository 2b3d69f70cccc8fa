package receiver

// NonSensitive is the seed's "Outbound non-sensitive payload": the
// patient's identity, delivered when their form is completed. A nil field
// was null: not known.
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

// Sensitive is the seed's "Outbound sensitive payload": measurements and
// the results of pads' scoring model (docs/scoring.md), delivered when the
// assessment is completed, to clients subscribed to full results. A nil
// field was null: not known, or not given by the model (a child, an
// unknown age).
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
	Weight                  *float64 `json:"weight"` // pounds
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
	Height       *string `json:"height"` // like 5'10"
	SmokerStatus *string `json:"smokerStatus"`
	Diabetic     *string `json:"diabetic"`     // "Yes" or "No"
	Hypertension *string `json:"hypertension"` // "Yes" or "No"
	BPMedication *string `json:"bpMedication"` // "Yes" or "No"

	AssessmentCompleted *bool `json:"assessmentCompleted"`

	// Added by pads-score-3 after the seed's fields.

	// Flags are the findings and red flags of the results, most severe
	// first; empty when there are none.
	Flags []Finding `json:"flags"`
	// ResultsWithheld says why there are no scores; nil when there are.
	ResultsWithheld *ResultsWithheld `json:"resultsWithheld"`
	// Caveats are the limits of the model's intended use, to show beside
	// the results.
	Caveats []Caveat `json:"caveats"`
	// Model is the scoring model that made the results (also the
	// X-<ServiceName>-Model header).
	Model string `json:"model"`
}

// Finding is one flag of pads' model in the seed JSON payload (the FHIR
// Bundle carries the same as Flag resources).
type Finding struct {
	Code           string `json:"code"`           // stable, e.g. "bp-stage-2"
	Severity       string `json:"severity"`       // mild, moderate or severe (a red flag)
	Text           string `json:"text"`           // to show
	Guideline      string `json:"guideline"`      // behind its threshold
	Interpretation string `json:"interpretation"` // HL7 v3 ObservationInterpretation: H, L, HH, LL, A, AA
	SeeClinician   bool   `json:"seeClinician"`
	Reading        string `json:"reading"` // the value that raised it, with its unit: "250 mg/dL"
}

// ResultsWithheld says why a payload has no scores.
type ResultsWithheld struct {
	// Reason is age-contradictory, age-unknown, under-18,
	// contradictory-measurements or insufficient-measurements.
	Reason string   `json:"reason"`
	Text   string   `json:"text"`
	Fields []string `json:"fields"` // the fields concerned
}

// Caveat is one limit of the model's intended use.
type Caveat struct {
	Code string `json:"code"`
	Text string `json:"text"`
}
