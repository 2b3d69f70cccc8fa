package score

// Max is the top of every 0-100 score.
const Max = 100

// Health credit scale, in the familiar 300-850 range of credit scores.
const (
	CreditMin = 300
	CreditMax = 850
)

// Result is every category, score and flag the sensitive payload and the
// FHIR Bundle carry, and why scores are withheld: the one value that says
// what pads tells a receiver about a record (Equal compares two). nil is
// unknown (sent as null).
type Result struct {
	Activity, Sleep, Equilibrium, Metabolism, Overall, Relaxation *float64
	HealthCredit                                                  *float64

	BloodPressureCategory, HeartRateCategory, HeartRateVariabilityCategory *string
	BreathingRateCategory, OxygenSaturationCategory                        *string
	ActivityCategory, SleepCategory, EquilibriumCategory                   *string
	MetabolismCategory, OverallHealthCategory, RelaxationCategory          *string
	HealthCreditCategory, StressIndex                                      *string

	// Flags are the red flags and findings raised (see Flags), most
	// severe first.
	Flags []Flag
	// Withheld says why there are no scores; nil when there are.
	Withheld *Withheld
	// Partial: the verdict was held below the top band because the risk
	// picture is not known (PartialCap); CaveatPartial says so.
	Partial bool
}

// PartialCap is the highest overall score of a verdict made without the
// risk picture: the metabolism score (BMI, lipids, metabolic syndrome,
// diabetes) or the smoking status unknown. Excellent overall and a
// Very Good or Exceptional health credit claim a low cardiometabolic
// risk, which the five vitals alone do not show; knowing less must never
// score better than knowing that all is well.
const PartialCap = MildCap

// Compute runs the whole model. Measurement categories are given for a
// known adult (18 or over); scores only when, besides, every one of the
// RequiredVitals is known (otherwise Withheld says why). Red flags are
// shown at every age they apply to, in the category of their measurement
// and in the overall and health credit categories; every flag caps the
// overall score by its severity.
func Compute(in Inputs) Result {
	v := readings(&in)
	r := Result{Flags: flagsOf(&in, v), Withheld: withheld(&in)}
	if atLeast(in.Age, adultAge) {
		r.categorize(in, v)
		if r.Withheld == nil {
			r.score(partsOf(in, v))
		}
	}
	r.showFlags()
	return r
}

// Cap is the highest overall score the flags allow: the cap of the most
// severe (Max with none).
func Cap(flags []Flag) float64 {
	c := float64(Max)
	for _, f := range flags {
		c = min(c, f.Severity.Cap())
	}
	return c
}

// categorize sets the measurement categories of an adult.
func (r *Result) categorize(in Inputs, v vitals) {
	if c := bpClass(v); c != "" {
		r.BloodPressureCategory = label(c)
	}
	if v.hr != nil {
		r.HeartRateCategory = label(HeartRateCategory(*v.hr, v.irregular))
	}
	if v.rr != nil {
		r.BreathingRateCategory = label(BreathingRateCategory(*v.rr))
	}
	if v.spo2 != nil {
		r.OxygenSaturationCategory = label(OxygenSaturationCategory(*v.spo2))
	}
	if in.HRV != nil {
		r.HeartRateVariabilityCategory = label(HeartRateVariabilityCategory(*in.HRV, in.HRVMeasure))
	}
}

// score sets the scores of an adult and their categories; the flags cap
// the overall score (Cap) before the health credit is made from it.
func (r *Result) score(p parts) {
	r.Metabolism = weighted(2, term{p.bmi, 2}, term{p.totalChol, 1}, term{p.ldl, 1}, term{p.hdl, 1},
		term{p.triglycerides, 1}, term{p.metS, 2}, term{p.diabetic, 1})
	r.Equilibrium = weighted(2, term{p.breathing, 1}, term{p.oxygen, 1}, term{p.systolic, 1}, term{p.heartRate, 1})
	if p.hrv != nil {
		r.Relaxation = weighted(1, term{p.hrv, 2}, term{p.heartRate, 1})
	}
	if p.heartRate != nil {
		r.Activity = weighted(1, term{p.heartRate, 2}, term{p.bmi, 1}, term{p.hrv, 1})
	}
	r.Sleep = weighted(2, term{p.hrv, 1}, term{p.heartRate, 1}, term{p.breathing, 1})
	cardio := weighted(1, term{p.bloodPressure, 2}, term{p.tenYearCVD, 2}, term{p.smoker, 1})
	r.Overall = weighted(2, term{fraction(cardio), 25}, term{fraction(r.Metabolism), 20}, term{fraction(r.Equilibrium), 20},
		term{fraction(r.Relaxation), 15}, term{fraction(r.Activity), 10}, term{fraction(r.Sleep), 10})
	if c := Cap(r.Flags); r.Overall != nil && *r.Overall > c {
		r.Overall = new(c)
	}
	if r.Overall != nil && (r.Metabolism == nil || p.smoker == nil) && *r.Overall > PartialCap {
		r.Overall, r.Partial = new(float64(PartialCap)), true
	}
	if r.Overall != nil {
		r.HealthCredit = new(round(CreditMin + (CreditMax-CreditMin)**r.Overall/Max))
		r.HealthCreditCategory = label(HealthCreditCategory(*r.HealthCredit))
	}
	r.capSubScores()
	for _, s := range []struct {
		score *float64
		cat   **string
	}{{r.Metabolism, &r.MetabolismCategory}, {r.Equilibrium, &r.EquilibriumCategory}, {r.Relaxation, &r.RelaxationCategory},
		{r.Activity, &r.ActivityCategory}, {r.Sleep, &r.SleepCategory}, {r.Overall, &r.OverallHealthCategory}} {
		if s.score != nil {
			*s.cat = label(ScoreCategory(*s.score))
		}
	}
	if r.Relaxation != nil {
		r.StressIndex = label(StressIndex(*r.Relaxation))
	}
}

// showFlags writes each red flag's label into the category of its
// measurement (the first red flag of each wins) and the first red flag's
// into the overall and health credit categories, so the categories say
// why. Milder flags leave the categories as they are: they cap the scores,
// and the flags list names them.
func (r *Result) showFlags() {
	if len(r.Flags) == 0 || r.Flags[0].Severity != Severe {
		return
	}
	r.OverallHealthCategory = label(r.Flags[0].Label)
	r.HealthCreditCategory = label(r.Flags[0].Label)
	for i := len(r.Flags) - 1; i >= 0; i-- { // backwards: the first of each measurement is written last
		f := r.Flags[i]
		if f.Severity != Severe {
			continue
		}
		switch f.Measurement {
		case BloodPressure:
			r.BloodPressureCategory = label(f.Label)
		case HeartRateReading, Rhythm:
			r.HeartRateCategory = label(f.Label)
		case BreathingRate:
			r.BreathingRateCategory = label(f.Label)
		case OxygenSaturation:
			r.OxygenSaturationCategory = label(f.Label)
		}
	}
}

// subScoreInputs names, for each sub-score, the measurements it reads: a
// flag about one of them caps that sub-score by its severity, as every
// flag caps the overall score. The rhythm counts with the heart rate
// (its category shows both), and the NEWS2 total with every sub-score
// that reads one of its readings.
var subScoreInputs = []struct {
	score func(*Result) **float64
	reads []Measurement
}{
	{func(r *Result) **float64 { return &r.Metabolism }, []Measurement{BodyMassIndex, TotalCholesterol, LDLCholesterol,
		HDLCholesterol, TriglycerideLevel, MetabolicSyndrome, DiabetesHistory}},
	{func(r *Result) **float64 { return &r.Equilibrium }, []Measurement{BreathingRate, OxygenSaturation, BloodPressure,
		HeartRateReading, Rhythm, Combined}},
	{func(r *Result) **float64 { return &r.Relaxation }, []Measurement{HeartRateReading, Rhythm, Combined}},
	{func(r *Result) **float64 { return &r.Activity }, []Measurement{HeartRateReading, Rhythm, BodyMassIndex, Combined}},
	{func(r *Result) **float64 { return &r.Sleep }, []Measurement{HeartRateReading, Rhythm, BreathingRate, Combined}},
}

// capSubScores caps each sub-score by the flags about its own inputs
// (subScoreInputs). The overall score is made from the sub-scores before
// these caps and capped by every flag itself, so a cap is never counted
// twice.
func (r *Result) capSubScores() {
	for _, s := range subScoreInputs {
		p := s.score(r)
		if *p == nil {
			continue
		}
		c := float64(Max)
		for _, f := range r.Flags {
			for _, m := range s.reads {
				if f.Measurement == m {
					c = min(c, f.Severity.Cap())
				}
			}
		}
		if **p > c {
			*p = new(c)
		}
	}
}

// parts are an adult's components; nil is unknown, or not applicable at
// the person's age.
type parts struct {
	breathing, oxygen, systolic, heartRate, hrv *float64
	bloodPressure, tenYearCVD, smoker           *float64
	bmi, totalChol, ldl, hdl, triglycerides     *float64
	metS, diabetic                              *float64
}

// The ACC/AHA 2019 10-year risk bands are for ages 40 to 75. The WHO
// adult BMI classes and the NCEP ATP III lipid classes (written for 20 or
// over) are read for every adult, 18 or over: at 18 and 19 the NHLBI 2011
// young-adult lipid cut-offs are the same or stricter, and an obese BMI
// is obese by BMI-for-age too, so leaving them out would let a raised
// value make a young adult's verdict better, never worse.
const riskMinAge, riskMaxAge = 40, 75

func partsOf(in Inputs, v vitals) parts {
	p := parts{
		breathing: apply(v.rr, breathing),
		oxygen:    apply(v.spo2, oxygen),
		systolic:  apply(v.sys, systolic),
		heartRate: apply(v.hr, heartRate),
		metS:      apply(in.MetSComponents, metabolicSyndrome),
		smoker:    applyBool(in.Smoker, 0.2),
		diabetic:  applyBool(in.Diabetic, 0.5),
	}
	if in.HRV != nil {
		p.hrv = new(hrv(*in.HRV, in.HRVMeasure))
	}
	if v.sys != nil && v.dia != nil {
		p.bloodPressure = new(bloodPressure(*v.sys, *v.dia))
	}
	if atLeast(in.Age, adultAge) {
		p.bmi = apply(in.BMI, bmiClass)
		p.totalChol = apply(in.TotalChol, totalCholesterol)
		p.ldl = apply(in.LDL, ldl)
		p.hdl = apply(in.HDL, hdl)
		p.triglycerides = apply(in.Triglycerides, triglycerides)
	}
	if atLeast(in.Age, riskMinAge) && *in.Age <= riskMaxAge {
		p.tenYearCVD = apply(in.TenYearCVD, tenYearCVD)
	}
	return p
}

func apply(v *float64, component func(float64) float64) *float64 {
	if v == nil {
		return nil
	}
	return new(component(*v))
}

func applyBool(v *bool, yes float64) *float64 {
	if v == nil {
		return nil
	}
	return new(yesNo(*v, yes))
}

// fraction turns a 0-100 score into a 0-1 component of the overall score.
func fraction(score *float64) *float64 {
	if score == nil {
		return nil
	}
	return new(*score / Max)
}

// term is one component of a score with its weight.
type term struct {
	v *float64
	w float64
}

// weighted is the weighted mean of the terms known, times Max, rounded
// half up; nil with fewer than min terms known. Unknown inputs narrow a
// score rather than lower it.
func weighted(min int, terms ...term) *float64 {
	var sum, weight float64
	n := 0
	for _, t := range terms {
		if t.v != nil {
			sum += *t.v * t.w
			weight += t.w
			n++
		}
	}
	if n < min || weight == 0 {
		return nil
	}
	return new(round(sum / weight * Max))
}
