package score

// Category values of the measurements. They describe a camera estimate
// against a published adult reference range, as a screening result: they
// never name a diagnosis. A red flag replaces them with its own label.
const (
	NormalRange       = "Normal range"
	ElevatedReading   = "Elevated reading"
	Stage1Reading     = "High reading (stage 1 range)"
	Stage2Reading     = "High reading (stage 2 range)"
	LowReading        = "Low reading"
	HighReading       = "High reading"
	BelowNormalRange  = "Below normal range"
	IrregularBeats    = "Normal range, irregular beats reported"
	BelowTypicalRange = "Below typical range"
	TypicalRange      = "Typical range"
	AboveTypicalRange = "Above typical range"
)

func label(s string) *string { return &s }

// BloodPressureCategory follows the ACC/AHA 2017 adult categories
// (Whelton et al., Hypertension 2018;71:e13-e115) on whole readings,
// checked from the most severe down so that the higher category wins when
// systolic and diastolic disagree. Needs both readings. Readings above
// 180/120 or below 90/60 are red flags, not categories.
func BloodPressureCategory(sys, dia float64) string {
	switch {
	case sys >= 140 || dia >= 90:
		return Stage2Reading
	case sys >= 130 || dia >= 80:
		return Stage1Reading
	case sys >= 120:
		return ElevatedReading
	}
	return NormalRange
}

// HeartRateCategory classes a whole resting rate against 50-100 bpm: the
// sinus bradycardia (< 50) of the ACC/AHA/HRS 2018 bradycardia guideline
// and the sinus tachycardia (> 100) of the ACC/AHA/HRS 2015 SVT guideline.
// Irregular beats reported at a normal rate are named; at other rates
// they are a red flag.
func HeartRateCategory(hr float64, irregular bool) string {
	switch {
	case hr < 50:
		return LowReading
	case hr > 100:
		return HighReading
	case irregular:
		return IrregularBeats
	}
	return NormalRange
}

// BreathingRateCategory classes a whole breathing rate against the normal
// adult range 12-20 per minute (the NEWS2 zero-point band).
func BreathingRateCategory(rr float64) string {
	switch {
	case rr < 12:
		return LowReading
	case rr > 20:
		return HighReading
	}
	return NormalRange
}

// OxygenSaturationCategory classes a whole SpO2 against the normal range
// of 95% or more (WHO Pulse Oximetry Training Manual, 2011).
func OxygenSaturationCategory(spo2 float64) string {
	if spo2 >= 95 {
		return NormalRange
	}
	return BelowNormalRange
}

// hrvNorms are the short-term (5-minute) HRV norms of healthy adults for
// measure m (SDNN unless RMSSD), Nunan, Sandercock and Brodie, Pacing Clin
// Electrophysiol 2010;33:1407-17: the mean and the range of reported study
// means.
func hrvNorms(m HRVMeasure) (mean, low, high float64) {
	if m == RMSSD {
		return 42, 19, 75
	}
	return 50, 32, 93
}

// HeartRateVariabilityCategory classes an HRV value against the Nunan 2010
// range of its measure: below, inside or above.
func HeartRateVariabilityCategory(ms float64, m HRVMeasure) string {
	_, low, high := hrvNorms(m)
	switch {
	case ms < low:
		return BelowTypicalRange
	case ms > high:
		return AboveTypicalRange
	}
	return TypicalRange
}

// ScoreCategory bands every 0-100 score (pads' own): 80-100 Excellent,
// 60-79 Good, 40-59 Fair, 0-39 Poor.
func ScoreCategory(score float64) string {
	switch {
	case score >= 80:
		return "Excellent"
	case score >= 60:
		return "Good"
	case score >= 40:
		return "Fair"
	}
	return "Poor"
}

// HealthCreditCategory uses the FICO score band names on the 300-850
// health credit scale: 800+ Exceptional, 740-799 Very Good, 670-739 Good,
// 580-669 Fair, below 580 Poor. A familiar reading of a composite, not a
// clinical standard.
func HealthCreditCategory(credit float64) string {
	switch {
	case credit >= 800:
		return "Exceptional"
	case credit >= 740:
		return "Very Good"
	case credit >= 670:
		return "Good"
	case credit >= 580:
		return "Fair"
	}
	return "Poor"
}

// StressIndex is a five-level scale read off the relaxation score (itself
// from HRV and resting heart rate): 80-100 Low, 60-79 Mild, 40-59
// Moderate, 20-39 High, 0-19 Very High.
func StressIndex(relaxation float64) string {
	switch {
	case relaxation >= 80:
		return "Low"
	case relaxation >= 60:
		return "Mild"
	case relaxation >= 40:
		return "Moderate"
	case relaxation >= 20:
		return "High"
	}
	return "Very High"
}
