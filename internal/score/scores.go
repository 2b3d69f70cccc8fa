package score

// Max is the top of every 0-100 score.
const Max = 100

// Health credit scale, in the familiar 300-850 range of credit scores.
const (
	CreditMin = 300
	CreditMax = 850
)

// Result is every category and score the sensitive payload carries; nil
// is unknown (sent as null).
type Result struct {
	Activity, Sleep, Equilibrium, Metabolism, Overall, Relaxation *float64
	HealthCredit                                                  *float64

	BloodPressureCategory, HeartRateCategory, HeartRateVariabilityCategory *string
	BreathingRateCategory, OxygenSaturationCategory                        *string
	ActivityCategory, SleepCategory, EquilibriumCategory                   *string
	MetabolismCategory, OverallHealthCategory, RelaxationCategory          *string
	HealthCreditCategory, StressIndex                                      *string
}

// mean is a weighted mean of the components known so far.
type mean struct {
	sum, weight float64
	n           int
}

func (m *mean) add(g, w float64) {
	m.sum += g * w
	m.weight += w
	m.n++
}

// score is the mean times Max, rounded, or nil with fewer than min
// components known.
func (m *mean) score(min int) *float64 {
	if m.n < min || m.weight == 0 {
		return nil
	}
	s := round(m.sum / m.weight * Max)
	return &s
}

// Compute runs the whole model.
func Compute(in Inputs) Result {
	r := Result{
		BloodPressureCategory:        BloodPressureCategory(in.Systolic, in.Diastolic),
		HeartRateCategory:            HeartRateCategory(in.HeartRate),
		HeartRateVariabilityCategory: HeartRateVariabilityCategory(in.SDNN, in.RMSSD),
		BreathingRateCategory:        BreathingRateCategory(in.BreathingRate),
		OxygenSaturationCategory:     OxygenSaturationCategory(in.SpO2),
	}
	r.Metabolism = metabolism(in)
	r.Equilibrium = equilibrium(in)
	r.Relaxation = relaxation(in)
	r.Activity = activity(in)
	r.Sleep = sleep(in)
	r.Overall = overall(in, r)
	if r.Overall != nil {
		c := round(CreditMin + (CreditMax-CreditMin)**r.Overall/Max)
		r.HealthCredit = &c
	}
	r.MetabolismCategory = ScoreCategory(r.Metabolism)
	r.EquilibriumCategory = ScoreCategory(r.Equilibrium)
	r.RelaxationCategory = ScoreCategory(r.Relaxation)
	r.ActivityCategory = ScoreCategory(r.Activity)
	r.SleepCategory = ScoreCategory(r.Sleep)
	r.OverallHealthCategory = ScoreCategory(r.Overall)
	r.HealthCreditCategory = HealthCreditCategory(r.HealthCredit)
	r.StressIndex = StressIndex(r.Relaxation)
	return r
}

// metabolism: BMI (2), total cholesterol, LDL, HDL, triglycerides (1 each),
// metabolic syndrome components (2), diabetes (1, 0.5 when diabetic).
// At least 2 known.
func metabolism(in Inputs) *float64 {
	var m mean
	if in.BMI != nil {
		m.add(bmiClass(*in.BMI), 2)
	}
	for _, c := range []struct {
		v *float64
		f func(float64) float64
	}{{in.TotalChol, totalCholesterol}, {in.LDL, ldl}, {in.HDL, hdl}, {in.Triglycerides, triglycerides}} {
		if c.v != nil {
			m.add(c.f(*c.v), 1)
		}
	}
	if in.MetSComponents != nil {
		m.add(metabolicSyndrome(*in.MetSComponents), 2)
	}
	if in.Diabetic != nil {
		m.add(yesNo(*in.Diabetic, 0.5), 1)
	}
	return m.score(2)
}

// equilibrium is NEWS2 inverted: 100 * (1 - points / (3 * parameters)) over
// respiration, SpO2, systolic pressure and pulse, whichever are known. At
// least 2 known.
func equilibrium(in Inputs) *float64 {
	var m mean
	add := func(v *float64, points func(float64) int) {
		if v != nil {
			m.add(1-float64(points(*v))/3, 1)
		}
	}
	add(in.BreathingRate, news2Respiration)
	add(in.SpO2, news2SpO2)
	add(in.Systolic, news2Systolic)
	add(in.HeartRate, news2Pulse)
	return m.score(2)
}

// relaxation: HRV (2) and resting heart rate (1). Needs HRV.
func relaxation(in Inputs) *float64 {
	var m mean
	g, ok := hrv(in.SDNN, in.RMSSD)
	if !ok {
		return nil
	}
	m.add(g, 2)
	if in.HeartRate != nil {
		m.add(restingHeartRate(*in.HeartRate), 1)
	}
	return m.score(1)
}

// activity is a proxy (pads measures no activity): resting heart rate (2),
// BMI (1) and HRV (1), markers of cardiorespiratory fitness. Needs the
// resting heart rate.
func activity(in Inputs) *float64 {
	if in.HeartRate == nil {
		return nil
	}
	var m mean
	m.add(restingHeartRate(*in.HeartRate), 2)
	if in.BMI != nil {
		m.add(bmiClass(*in.BMI), 1)
	}
	if g, ok := hrv(in.SDNN, in.RMSSD); ok {
		m.add(g, 1)
	}
	return m.score(1)
}

// sleep is a proxy (pads measures no sleep): HRV, resting heart rate and
// breathing rate (NEWS2), one each, markers of recovery. At least 2 known.
func sleep(in Inputs) *float64 {
	var m mean
	if g, ok := hrv(in.SDNN, in.RMSSD); ok {
		m.add(g, 1)
	}
	if in.HeartRate != nil {
		m.add(restingHeartRate(*in.HeartRate), 1)
	}
	if in.BreathingRate != nil {
		m.add(1-float64(news2Respiration(*in.BreathingRate))/3, 1)
	}
	return m.score(2)
}

// overall: cardiovascular (25: blood pressure 2, 10-year CVD risk 2,
// smoking 1), metabolism (20), equilibrium (20), relaxation (15), activity
// (10), sleep (10), over those known. At least 2 known.
func overall(in Inputs, r Result) *float64 {
	var m mean
	var cardio mean
	if in.Systolic != nil && in.Diastolic != nil {
		cardio.add(bloodPressure(*in.Systolic, *in.Diastolic), 2)
	}
	if in.TenYearCVD != nil {
		cardio.add(tenYearCVD(*in.TenYearCVD), 2)
	}
	if in.Smoker != nil {
		cardio.add(yesNo(*in.Smoker, 0.2), 1)
	}
	if cardio.n > 0 {
		m.add(cardio.sum/cardio.weight, 25)
	}
	for _, s := range []struct {
		v *float64
		w float64
	}{{r.Metabolism, 20}, {r.Equilibrium, 20}, {r.Relaxation, 15}, {r.Activity, 10}, {r.Sleep, 10}} {
		if s.v != nil {
			m.add(*s.v/Max, s.w)
		}
	}
	return m.score(2)
}
