package score

import "slices"

// A Caveat is one limit of the model's intended use, for a receiver to
// show beside the results: a stable code and its text.
type Caveat struct {
	Code string
	Text string
}

// Caveats are the intended-use limits every sensitive payload and FHIR
// Bundle carries (docs/scoring.md, "What the results are, and are not").
var Caveats = []Caveat{
	{"camera-estimate", "Readings are camera-based estimates from a face scan, less accurate than a cuff, an oximeter or a blood test; confirm any reading that matters with a proper measurement."},
	{"not-a-diagnosis", "A wellness screen, not a diagnosis: a normal result does not rule anything out."},
	{"adults-only", "The reference ranges are for adults (18 or over); no scores are given for children or when the age is unknown."},
	{"not-for-pregnancy", "Not valid in pregnancy: blood pressure, heart rate and breathing ranges change, and NEWS2 does not apply."},
	{"red-flag-see-a-clinician", "A red flag means: see a clinician promptly. Anyone who feels unwell should seek care at once, whatever the scores say."},
}

// CaveatPartial is added to the Caveats of a result whose verdict was held
// at PartialCap (Result.Partial).
var CaveatPartial = Caveat{"partial-risk-picture", "The verdict is at most Good: the risk answers behind a top verdict " +
	"(BMI or lipids or metabolic syndrome or diabetes, and smoking) are not all known. Send them for a full verdict."}

// CaveatsOf are the caveats of result r: Caveats, and CaveatPartial when
// its verdict is partial.
func CaveatsOf(r Result) []Caveat {
	if !r.Partial {
		return Caveats
	}
	return append(slices.Clip(Caveats), CaveatPartial)
}
