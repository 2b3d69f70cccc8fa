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
}
