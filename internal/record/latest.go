package record

// Latest names, for each quantity that more than one field can give, the
// field that gave it last: "the most recent value wins" needs to know
// which is most recent, and a record keeps no time per field. An empty
// name is "no save has said" (records stored before pads-score-3, or a
// quantity never given); the scoring model then reads the fields in its
// fixed source order and leaves out values that disagree.
//
// When one save gives several fields of a quantity (the request decoder
// has checked that they agree), the first of that quantity's list below
// is named.
type Latest struct {
	Age       string `json:"age,omitempty"`       // dateOfBirth, age
	Weight    string `json:"weight,omitempty"`    // weightLb, weightKg
	Height    string `json:"height,omitempty"`    // heightFt (feet and inches; heightIn too), heightCm
	BMI       string `json:"bmi,omitempty"`       // riskBmi, body (a weight or height field)
	HeartRate string `json:"heartRate,omitempty"` // heartRateBpm, riskRestingHeartRate, ibi
	Smoker    string `json:"smoker,omitempty"`    // smokerRiskStatus, smoker
}

// The names Latest uses beyond field names: BodyFields for a BMI made
// from weight and height, and heightFt for a height in feet and inches,
// whichever of heightFt and heightIn gave it.
const BodyFields = "body"

// after returns the markers once the values of one save are applied: a
// new Latest, never l written through (a stored record's marker may be
// shared). nil when no marker is known.
func (l *Latest) after(v *Fields) *Latest {
	var n Latest
	if l != nil {
		n = *l
	}
	first := func(dst *string, names []string, given ...bool) {
		for i, g := range given {
			if g {
				*dst = names[i]
				return
			}
		}
	}
	// dateOfBirth first: it is exact, where age is a whole count that can
	// lag by up to a year (the decoder refuses the two further apart).
	first(&n.Age, []string{"dateOfBirth", "age"}, v.DateOfBirth != nil, v.Age != nil)
	first(&n.Weight, []string{"weightLb", "weightKg"}, v.WeightLb != nil, v.WeightKg != nil)
	first(&n.Height, []string{"heightFt", "heightFt", "heightCm"}, v.HeightFt != nil, v.HeightIn != nil, v.HeightCm != nil)
	body := v.WeightLb != nil || v.WeightKg != nil || v.HeightFt != nil || v.HeightIn != nil || v.HeightCm != nil
	first(&n.BMI, []string{"riskBmi", BodyFields}, v.RiskBmi != nil, body)
	first(&n.HeartRate, []string{"heartRateBpm", "riskRestingHeartRate", "ibi"}, v.HeartRateBpm != nil, v.RiskRestingHeartRate != nil, v.Ibi != nil)
	first(&n.Smoker, []string{"smokerRiskStatus", "smoker"}, v.SmokerRiskStatus != nil, v.Smoker != nil)
	if n == (Latest{}) {
		return nil
	}
	if l != nil && n == *l {
		return l
	}
	return &n
}
