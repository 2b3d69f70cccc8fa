package score

import "slices"

// Withheld says why a result has no scores: its Reason is a stable code,
// Fields the fields it concerns (those missing, or those that disagree).
type Withheld struct {
	Reason string
	Fields []string
}

// The reasons a verdict is withheld, in the order they are checked.
const (
	AgeContradictory          = "age-contradictory"
	AgeUnknown                = "age-unknown"
	Under18                   = "under-18"
	ContradictoryMeasurements = "contradictory-measurements"
	InsufficientMeasurements  = "insufficient-measurements"
)

// Text is the reason in words, for a person to read.
func (w Withheld) Text() string {
	switch w.Reason {
	case AgeContradictory:
		return "No scores: age and date of birth disagree, and nothing says which is right"
	case AgeUnknown:
		return "No scores: the age is not known, and the model's ranges are for adults"
	case Under18:
		return "No scores: the model's ranges are for adults (18 or over). A child's heart rate, breathing rate and blood pressure " +
			"are not assessed against children's norms: only the red flags that hold at the child's age (SpO2 below 90%, blood " +
			"pressure above 180/120, and NEWS2 from 16) are raised, so a clinician should read the measurements"
	case ContradictoryMeasurements:
		return "No scores: fields that measure the same vital sign disagree"
	case InsufficientMeasurements:
		return "No scores: the measurements needed for a verdict are not all known"
	}
	return ""
}

func (w *Withheld) equal(o *Withheld) bool {
	return w == o || w != nil && o != nil && w.Reason == o.Reason && slices.Equal(w.Fields, o.Fields)
}

// RequiredVitals are the measured vital signs every score needs, by the
// fields that give them: blood pressure (both readings), resting heart
// rate, breathing rate and SpO2. Each has a danger range with a red flag;
// a verdict made without one of them would treat the missing reading as
// normal. Questionnaire answers and client-supplied risk numbers refine a
// verdict, and never make one.
var RequiredVitals = []string{"systolicBloodPressureMmhg", "diastolicBloodPressureMmhg", "heartRateBpm", "breathingRateBpm", "oxygen"}

// withheld is why in gets no scores, nil when it gets them.
func withheld(in *Inputs) *Withheld {
	switch {
	case in.AgeContradictory:
		return &Withheld{Reason: AgeContradictory, Fields: []string{"age", "dateOfBirth"}}
	case in.Age == nil:
		return &Withheld{Reason: AgeUnknown, Fields: []string{"age", "dateOfBirth"}}
	case *in.Age < adultAge:
		return &Withheld{Reason: Under18, Fields: []string{"age", "dateOfBirth"}}
	}
	if in.HeartRate == nil {
		var hr []string
		for _, f := range in.Conflicts {
			if f == "heartRateBpm" || f == "riskRestingHeartRate" || f == "ibi" {
				hr = append(hr, f)
			}
		}
		if len(hr) > 0 {
			return &Withheld{Reason: ContradictoryMeasurements, Fields: hr}
		}
	}
	var missing []string
	for i, v := range []*float64{in.Systolic, in.Diastolic, in.HeartRate, in.BreathingRate, in.SpO2} {
		if v == nil {
			missing = append(missing, RequiredVitals[i])
		}
	}
	if len(missing) > 0 {
		return &Withheld{Reason: InsufficientMeasurements, Fields: missing}
	}
	return nil
}
