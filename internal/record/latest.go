package record

import "math"

// Latest names, for each quantity that more than one field can give, the
// field that gave it last: "the most recent value wins" needs to know
// which is most recent, and a record keeps no time per field. An empty
// name is "no save has said" (records stored before pads-score-3, or a
// quantity never given); the scoring model then reads the fields in its
// fixed source order and leaves out values that disagree.
//
// When one save gives several fields of a quantity (the request decoder
// has checked that they agree), the first of that quantity's list below
// is named; for the heart rate, the most extreme of them
// (mostExtremeHeartRate).
type Latest struct {
	Age       string `json:"age,omitempty"`       // dateOfBirth, age
	Weight    string `json:"weight,omitempty"`    // weightLb, weightKg
	Height    string `json:"height,omitempty"`    // heightFt (feet and inches; heightIn too), heightCm
	BMI       string `json:"bmi,omitempty"`       // riskBmi, body (a weight or height field)
	HeartRate string `json:"heartRate,omitempty"` // heartRateBpm, riskRestingHeartRate, ibi
	Smoker    string `json:"smoker,omitempty"`    // smokerRiskStatus, smoker
}

// midNormalHeartRate is the middle of the normal resting range 50-100/min.
const midNormalHeartRate = 75.0

// mostExtremeHeartRate names, of the heart-rate fields one save gives,
// the one farthest from the middle of the normal range (60000 / ibi for
// ibi): when agreeing fields straddle a threshold (127 and 131 per
// minute), the worse reading is the one scored, never the milder. Ties go
// to the first of heartRateBpm, riskRestingHeartRate, ibi. "" when the
// save gives none.
func mostExtremeHeartRate(v *Fields) string {
	name, far := "", -1.0
	for _, c := range []struct {
		name string
		bpm  *float64
	}{{"heartRateBpm", v.HeartRateBpm}, {"riskRestingHeartRate", v.RiskRestingHeartRate}, {"ibi", ibiRate(v.Ibi)}} {
		if c.bpm == nil {
			continue
		}
		if d := math.Abs(*c.bpm - midNormalHeartRate); d > far {
			name, far = c.name, d
		}
	}
	return name
}

func ibiRate(ibi *float64) *float64 {
	if ibi == nil || *ibi <= 0 {
		return nil
	}
	r := 60000 / *ibi
	return &r
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
	if name := mostExtremeHeartRate(v); name != "" {
		n.HeartRate = name
	}
	first(&n.Smoker, []string{"smokerRiskStatus", "smoker"}, v.SmokerRiskStatus != nil, v.Smoker != nil)
	if n == (Latest{}) {
		return nil
	}
	if l != nil && n == *l {
		return l
	}
	return &n
}
