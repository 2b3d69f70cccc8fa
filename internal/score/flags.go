package score

// Measurement names the reading whose category field shows a red flag.
type Measurement int

// The measurements with a category field of their own; Combined is a flag
// of several readings together, shown only in the overall categories.
const (
	Combined Measurement = iota
	BloodPressure
	HeartRateReading
	BreathingRate
	OxygenSaturation
)

// A Flag is a red flag: a reading in a range where pads must never report
// good health, and where the reader should see a clinician. Label is the
// category value that names it.
type Flag struct {
	ID          string
	Label       string
	Measurement Measurement
}

// The red flags, most urgent first: when several are raised, the overall
// categories name the first, and a measurement's category the first of
// its own.
var (
	FlagSpO2Below90        = Flag{"spo2-below-90", "Red flag: SpO2 below 90%; see a clinician", OxygenSaturation}
	FlagBPAbove180Over120  = Flag{"bp-above-180-120", "Red flag: blood pressure above 180/120; see a clinician", BloodPressure}
	FlagBPBelow90Over60    = Flag{"bp-below-90-60", "Red flag: blood pressure below 90/60; see a clinician", BloodPressure}
	FlagIrregularAbnormal  = Flag{"irregular-abnormal-rate", "Red flag: irregular heartbeats with a rate outside 50-100; see a clinician", HeartRateReading}
	FlagHeartRateBelow40   = Flag{"heart-rate-below-40", "Red flag: resting heart rate below 40; see a clinician", HeartRateReading}
	FlagHeartRateAbove130  = Flag{"heart-rate-above-130", "Red flag: resting heart rate above 130; see a clinician", HeartRateReading}
	FlagNEWS2Respiration   = Flag{"news2-respiration-3", "Red flag: breathing rate scores 3 on NEWS2; see a clinician", BreathingRate}
	FlagNEWS2SpO2          = Flag{"news2-spo2-3", "Red flag: SpO2 scores 3 on NEWS2; see a clinician", OxygenSaturation}
	FlagNEWS2Systolic      = Flag{"news2-systolic-3", "Red flag: systolic pressure scores 3 on NEWS2; see a clinician", BloodPressure}
	FlagNEWS2Pulse         = Flag{"news2-pulse-3", "Red flag: heart rate scores 3 on NEWS2; see a clinician", HeartRateReading}
	FlagNEWS2TotalAtLeast5 = Flag{"news2-total-5", "Red flag: NEWS2 total of 5 or more; see a clinician", Combined}
)

// Ages the rules apply from. anyAge rules hold for children and for
// people of unknown age as well.
const (
	anyAge   = 0
	news2Age = 16 // RCP 2017 and NICE NG51: NEWS2 is for people aged 16 or over
	adultAge = 18
)

// rule raises its flag when the person's age is in range and its test
// holds on the whole readings.
type rule struct {
	flag   Flag
	minAge float64
	test   func(v vitals) bool
}

// vitals are the vital signs rounded to whole readings; nil is unknown.
type vitals struct {
	sys, dia, hr, rr, spo2 *float64
	irregular              bool
}

func readings(in Inputs) vitals {
	return vitals{
		sys: whole(in.Systolic), dia: whole(in.Diastolic), hr: whole(in.HeartRate),
		rr: whole(in.BreathingRate), spo2: whole(in.SpO2),
		irregular: in.IrregularHeartBeats != nil && *in.IrregularHeartBeats,
	}
}

// is reports whether the reading is known and test holds for it.
func is(v *float64, test func(float64) bool) bool { return v != nil && test(*v) }

// rules are the red-flag rules in the order of the flags above. Sources:
// WHO (hypoxaemia below 90%); ACC/AHA 2017 (severe hypertension above
// 180/120) and AAP 2017 for adolescents; NHLBI (hypotension below 90/60);
// ACC/AHA/HRS 2018 and 2015 (sinus rates 50-100); RCP NEWS2 2017 (a
// parameter scoring 3, or a total of 5 or more, calls for an urgent
// clinical review).
var rules = []rule{
	{FlagSpO2Below90, anyAge, func(v vitals) bool { return is(v.spo2, func(s float64) bool { return s < 90 }) }},
	{FlagBPAbove180Over120, anyAge, func(v vitals) bool {
		return is(v.sys, func(s float64) bool { return s > 180 }) || is(v.dia, func(d float64) bool { return d > 120 })
	}},
	{FlagBPBelow90Over60, adultAge, func(v vitals) bool {
		return is(v.sys, func(s float64) bool { return s < 90 }) || is(v.dia, func(d float64) bool { return d < 60 })
	}},
	{FlagIrregularAbnormal, adultAge, func(v vitals) bool {
		return v.irregular && is(v.hr, func(h float64) bool { return h < 50 || h > 100 })
	}},
	{FlagHeartRateBelow40, adultAge, func(v vitals) bool { return is(v.hr, func(h float64) bool { return h < 40 }) }},
	{FlagHeartRateAbove130, adultAge, func(v vitals) bool { return is(v.hr, func(h float64) bool { return h > 130 }) }},
	{FlagNEWS2Respiration, news2Age, func(v vitals) bool { return points(v.rr, news2Respiration) == 3 }},
	{FlagNEWS2SpO2, news2Age, func(v vitals) bool { return points(v.spo2, news2SpO2) == 3 }},
	{FlagNEWS2Systolic, news2Age, func(v vitals) bool { return points(v.sys, news2Systolic) == 3 }},
	{FlagNEWS2Pulse, news2Age, func(v vitals) bool { return points(v.hr, news2Pulse) == 3 }},
	{FlagNEWS2TotalAtLeast5, news2Age, func(v vitals) bool { return news2Total(v) >= 5 }},
}

// RedFlags returns the red flags of the inputs, most urgent first. A rule
// with a minimum age is not applied when the age is unknown: NEWS2 is not
// valid under 16, and the adult ranges are not valid for children.
func RedFlags(in Inputs) []Flag {
	v := readings(in)
	var flags []Flag
	for _, r := range rules {
		if (r.minAge == anyAge || atLeast(in.Age, r.minAge)) && r.test(v) {
			flags = append(flags, r.flag)
		}
	}
	return flags
}
