package score

// Measurement names what a flag is about: the reading whose category
// field shows a red flag, or the answer or risk number behind a finding.
// Flags about one Measurement are graded against each other: only the
// most severe of them are kept (a blood pressure above 180/120 is not
// also listed as in the stage 2 range).
type Measurement int

// The measurements. Combined is a flag of several readings together,
// shown only in the overall categories.
const (
	Combined Measurement = iota
	BloodPressure
	HeartRateReading
	Rhythm // shown in the heart rate category
	BreathingRate
	OxygenSaturation
	BodyMassIndex
	TotalCholesterol
	LDLCholesterol
	HDLCholesterol
	TriglycerideLevel
	MetabolicSyndrome
	TenYearRisk
	HypertensionHistory
	DiabetesHistory
	SmokingHistory
)

// Severity grades a flag. Each severity caps the overall score (Cap), and
// so the health credit, at the top of a band: a result can never read
// better than its worst flag allows.
type Severity int

// The severities, mildest first.
const (
	Mild     Severity = iota + 1 // outside the normal range, not a danger: at most Good / Good
	Moderate                     // abnormal, worth a clinician's attention: at most Fair / Fair
	Severe                       // a red flag, see a clinician promptly: Poor / Poor
)

// String is the severity's name in payloads: mild, moderate, severe.
func (s Severity) String() string {
	switch s {
	case Mild:
		return "mild"
	case Moderate:
		return "moderate"
	case Severe:
		return "severe"
	}
	return ""
}

// The caps of the overall score, at the top of a score band whose health
// credit (300 + 5.5 × overall) lies in the credit band of the same rank.
const (
	MildCap     = 79 // Good; credit at most 735, Good
	ModerateCap = 59 // Fair; credit at most 625, Fair
	FlagCap     = 39 // Poor; credit at most 515, Poor
)

// Cap is the highest overall score a result with a flag of severity s
// can have.
func (s Severity) Cap() float64 {
	switch s {
	case Severe:
		return FlagCap
	case Moderate:
		return ModerateCap
	case Mild:
		return MildCap
	}
	return Max
}

// HL7 v3 ObservationInterpretation codes a flag carries
// (http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation).
const (
	High             = "H"
	Low              = "L"
	CriticalHigh     = "HH"
	CriticalLow      = "LL"
	Abnormal         = "A"
	CriticalAbnormal = "AA"
)

// A Flag is a finding of the model: a stable code (ID), the text a person
// reads (Label), its severity, the guideline behind its threshold, and
// its HL7 interpretation code. Severe flags are the red flags: their
// Label replaces the category of their measurement and the overall
// categories, and SeeClinician is true for them and for the findings
// guidelines send to a clinician.
type Flag struct {
	ID             string
	Label          string
	Measurement    Measurement
	Severity       Severity
	Interpretation string
	Guideline      string
	SeeClinician   bool
	// Reading is the value that raised the flag, as its rule read it
	// (whole vital signs: an SpO2 of 94.5 is "95 %"), with its unit; the
	// answer for a declared condition. Empty in the tables of AllFlags.
	Reading string
}

// Guidelines, as the flags cite them.
const (
	guideWHOOximetry  = "WHO Pulse Oximetry Training Manual (2011)"
	guideACCAHA2017   = "ACC/AHA 2017 high blood pressure guideline (Whelton et al., Hypertension 2018;71:e13-e115)"
	guideNHLBI        = "NHLBI, Low Blood Pressure (below 90/60 mmHg)"
	guideAF2023       = "2023 ACC/AHA/ACCP/HRS atrial fibrillation guideline (Joglar et al., Circulation 2024;149:e1-e156)"
	guideBrady2018    = "2018 ACC/AHA/HRS bradycardia guideline (Kusumoto et al.): sinus bradycardia below 50/min"
	guideSVT2015      = "2015 ACC/AHA/HRS SVT guideline (Page et al.): sinus tachycardia above 100/min"
	guideNEWS2        = "RCP National Early Warning Score 2 (2017)"
	guideWHOBMI       = "WHO adult BMI classes (Technical Report Series 894, 2000)"
	guideNCEP         = "NCEP ATP III (JAMA 2001;285:2486-97)"
	guideMetS         = "Harmonized metabolic syndrome definition (Alberti et al., Circulation 2009;120:1640-5)"
	guidePrevention19 = "2019 ACC/AHA primary prevention guideline (Arnett et al., Circulation 2019;140:e596-e646)"
)

func redFlag(id, what string, m Measurement, interp, guideline string) Flag {
	return Flag{id, "Red flag: " + what + "; see a clinician", m, Severe, interp, guideline, true, ""}
}

// The red flags, most urgent first: when several are raised, the overall
// categories name the first, and a measurement's category the first of
// its own. A flag of both directions (the NEWS2 ones) carries the
// interpretation of the reading that raised it (LL or HH).
var (
	FlagSpO2Below90        = redFlag("spo2-below-90", "SpO2 below 90%", OxygenSaturation, CriticalLow, guideWHOOximetry)
	FlagBPAbove180Over120  = redFlag("bp-above-180-120", "blood pressure above 180/120", BloodPressure, CriticalHigh, guideACCAHA2017)
	FlagBPBelow90Over60    = redFlag("bp-below-90-60", "blood pressure below 90/60", BloodPressure, CriticalLow, guideNHLBI)
	FlagIrregularAbnormal  = redFlag("irregular-abnormal-rate", "irregular heartbeats with a rate outside 50-100", Rhythm, CriticalAbnormal, guideAF2023)
	FlagHeartRateBelow40   = redFlag("heart-rate-below-40", "resting heart rate below 40", HeartRateReading, CriticalLow, guideNEWS2)
	FlagHeartRateAbove130  = redFlag("heart-rate-above-130", "resting heart rate above 130", HeartRateReading, CriticalHigh, guideNEWS2)
	FlagNEWS2Respiration   = redFlag("news2-respiration-3", "breathing rate scores 3 on NEWS2", BreathingRate, CriticalHigh, guideNEWS2)
	FlagNEWS2SpO2          = redFlag("news2-spo2-3", "SpO2 scores 3 on NEWS2", OxygenSaturation, CriticalLow, guideNEWS2)
	FlagNEWS2Systolic      = redFlag("news2-systolic-3", "systolic pressure scores 3 on NEWS2", BloodPressure, CriticalHigh, guideNEWS2)
	FlagNEWS2Pulse         = redFlag("news2-pulse-3", "heart rate scores 3 on NEWS2", HeartRateReading, CriticalHigh, guideNEWS2)
	FlagNEWS2TotalAtLeast5 = redFlag("news2-total-5", "NEWS2 total of 5 or more", Combined, CriticalAbnormal, guideNEWS2)
)

// Ages the rules apply from. anyAge rules hold for children and for
// people of unknown age as well.
const (
	anyAge   = 0
	news2Age = 16 // RCP 2017 and NICE NG51: NEWS2 is for people aged 16 or over
	adultAge = 18
)

// rule raises its flag when the person's age is in range and its test
// gives an interpretation code ("" is not raised; the flag's own code is
// kept unless the test names the other direction).
type rule struct {
	flag   Flag
	minAge float64
	test   func(in *Inputs, v vitals) string
}

// vitals are the vital signs rounded to whole readings; nil is unknown.
type vitals struct {
	sys, dia, hr, rr, spo2 *float64
	irregular              bool
}

func readings(in *Inputs) vitals {
	return vitals{
		sys: whole(in.Systolic), dia: whole(in.Diastolic), hr: whole(in.HeartRate),
		rr: whole(in.BreathingRate), spo2: whole(in.SpO2),
		irregular: in.IrregularHeartBeats != nil && *in.IrregularHeartBeats,
	}
}

// is reports whether the reading is known and test holds for it.
func is(v *float64, test func(float64) bool) bool { return v != nil && test(*v) }

// when gives code when ok, else "".
func when(ok bool, code string) string {
	if ok {
		return code
	}
	return ""
}

// direction is the code of a two-sided NEWS2 parameter scoring 3: LL below
// its normal band, HH above.
func direction(v *float64, table func(float64) int, lowBelow float64) string {
	if points(v, table) != 3 {
		return ""
	}
	return when(*v < lowBelow, CriticalLow) + when(*v >= lowBelow, CriticalHigh)
}

// redFlagRules are the red-flag rules in the order of the flags above.
var redFlagRules = []rule{
	{FlagSpO2Below90, anyAge, func(_ *Inputs, v vitals) string {
		return when(is(v.spo2, func(s float64) bool { return s < 90 }), CriticalLow)
	}},
	{FlagBPAbove180Over120, anyAge, func(_ *Inputs, v vitals) string {
		return when(is(v.sys, func(s float64) bool { return s > 180 }) || is(v.dia, func(d float64) bool { return d > 120 }), CriticalHigh)
	}},
	{FlagBPBelow90Over60, adultAge, func(_ *Inputs, v vitals) string {
		return when(is(v.sys, func(s float64) bool { return s < 90 }) || is(v.dia, func(d float64) bool { return d < 60 }), CriticalLow)
	}},
	{FlagIrregularAbnormal, adultAge, func(_ *Inputs, v vitals) string {
		return when(v.irregular && is(v.hr, func(h float64) bool { return h < 50 || h > 100 }), CriticalAbnormal)
	}},
	{FlagHeartRateBelow40, adultAge, func(_ *Inputs, v vitals) string {
		return when(is(v.hr, func(h float64) bool { return h < 40 }), CriticalLow)
	}},
	{FlagHeartRateAbove130, adultAge, func(_ *Inputs, v vitals) string {
		return when(is(v.hr, func(h float64) bool { return h > 130 }), CriticalHigh)
	}},
	{FlagNEWS2Respiration, news2Age, func(_ *Inputs, v vitals) string { return direction(v.rr, news2Respiration, 12) }},
	{FlagNEWS2SpO2, news2Age, func(_ *Inputs, v vitals) string {
		return when(points(v.spo2, news2SpO2) == 3, CriticalLow)
	}},
	{FlagNEWS2Systolic, news2Age, func(_ *Inputs, v vitals) string { return direction(v.sys, news2Systolic, 111) }},
	{FlagNEWS2Pulse, news2Age, func(_ *Inputs, v vitals) string { return direction(v.hr, news2Pulse, 51) }},
	{FlagNEWS2TotalAtLeast5, news2Age, func(_ *Inputs, v vitals) string {
		return when(news2Total(v) >= 5, CriticalAbnormal)
	}},
}

// RedFlags returns the red flags of the inputs, most urgent first. A rule
// with a minimum age is not applied when the age is unknown: NEWS2 is not
// valid under 16, and the adult ranges are not valid for children.
func RedFlags(in Inputs) []Flag {
	return raise(nil, redFlagRules, &in, readings(&in))
}

// Flags returns every flag of the inputs, red flags and findings: for each
// Measurement only its most severe flags, then the most severe first, in
// the order of their tables (red flags, then findings).
func Flags(in Inputs) []Flag { return flagsOf(&in, readings(&in)) }

// flagsOf is Flags of readings v of in. The flags are raised into a
// buffer on the stack and copied once, at their final length: scoring
// runs on every event, and allocations are most of its cost.
func flagsOf(in *Inputs, v vitals) []Flag {
	var buf [16]Flag
	all := raise(buf[:0], redFlagRules, in, v)
	all = raise(all, findingRules, in, v)
	if len(all) == 0 {
		return nil
	}
	var worst [SmokingHistory + 1]Severity
	for _, f := range all {
		worst[f.Measurement] = max(worst[f.Measurement], f.Severity)
	}
	n := 0
	for _, f := range all {
		if worst[f.Measurement] == f.Severity {
			n++
		}
	}
	kept := make([]Flag, 0, n)
	for s := Severe; s >= Mild; s-- {
		for _, f := range all {
			if f.Severity == s && worst[f.Measurement] == s {
				kept = append(kept, f)
			}
		}
	}
	return kept
}

// raise appends to dst the flags of the rules that hold.
func raise(dst []Flag, rules []rule, in *Inputs, v vitals) []Flag {
	for _, r := range rules {
		if r.minAge != anyAge && !atLeast(in.Age, r.minAge) {
			continue
		}
		if code := r.test(in, v); code != "" {
			f := r.flag
			f.Interpretation = code
			f.Reading = reading(f.Measurement, in, v)
			dst = append(dst, f)
		}
	}
	return dst
}

// AllFlags lists every flag the model can raise, red flags first, each
// with the interpretation code of its table (a two-sided NEWS2 flag shows
// HH here; raised by a low reading it carries LL).
func AllFlags() []Flag {
	var out []Flag
	for _, r := range redFlagRules {
		out = append(out, r.flag)
	}
	for _, r := range findingRules {
		out = append(out, r.flag)
	}
	return out
}
