package score

import "math"

// Category labels. Each table below names its source; docs/scoring.md
// lists the same bands.
const (
	Normal             = "Normal"
	Elevated           = "Elevated"
	HypertensionStage1 = "Hypertension Stage 1"
	HypertensionStage2 = "Hypertension Stage 2"
	HypertensiveCrisis = "Hypertensive Crisis"
	Low                = "Low"
	High               = "High"
	VeryLow            = "Very Low"
	VeryHigh           = "Very High"
	BelowNormal        = "Below Normal"
)

func label(s string) *string { return &s }

// whole rounds a reading to the nearest whole unit: the blood pressure,
// heart rate, breathing and SpO2 tables are defined on whole readings.
func whole(v float64) float64 { return math.Round(v) }

// BloodPressureCategory follows ACC/AHA 2017 (Whelton et al., Hypertension
// 2018;71:e13-e115): checked from the most severe down, so when systolic and
// diastolic fall in different categories the higher one wins. Needs both.
func BloodPressureCategory(systolic, diastolic *float64) *string {
	if systolic == nil || diastolic == nil {
		return nil
	}
	s, d := whole(*systolic), whole(*diastolic)
	switch {
	case s > 180 || d > 120:
		return label(HypertensiveCrisis)
	case s >= 140 || d >= 90:
		return label(HypertensionStage2)
	case s >= 130 || d >= 80:
		return label(HypertensionStage1)
	case s >= 120:
		return label(Elevated)
	}
	return label(Normal)
}

// HeartRateCategory classes a resting heart rate: below 60 Low, 60-100
// Normal, above 100 High (AHA; the adult resting range 60-100 bpm).
func HeartRateCategory(hr *float64) *string {
	if hr == nil {
		return nil
	}
	switch h := whole(*hr); {
	case h < 60:
		return label(Low)
	case h > 100:
		return label(High)
	}
	return label(Normal)
}

// BreathingRateCategory uses the NEWS2 respiration bands (Royal College of
// Physicians, National Early Warning Score 2, 2017): <=8 Very Low, 9-11 Low,
// 12-20 Normal, 21-24 High, >=25 Very High.
func BreathingRateCategory(rr *float64) *string {
	if rr == nil {
		return nil
	}
	switch r := whole(*rr); {
	case r <= 8:
		return label(VeryLow)
	case r <= 11:
		return label(Low)
	case r <= 20:
		return label(Normal)
	case r <= 24:
		return label(High)
	}
	return label(VeryHigh)
}

// OxygenSaturationCategory: >=95% Normal, 90-94% Below Normal, <90% Low
// (WHO, Pulse Oximetry Training Manual, 2011; <90% is hypoxaemia).
func OxygenSaturationCategory(spo2 *float64) *string {
	if spo2 == nil {
		return nil
	}
	switch s := whole(*spo2); {
	case s >= 95:
		return label(Normal)
	case s >= 90:
		return label(BelowNormal)
	}
	return label(Low)
}

// Short-term (5-minute) HRV norms of healthy adults, Nunan, Sandercock and
// Brodie, Pacing Clin Electrophysiol 2010;33:1407-17: mean and the range of
// reported study means. Not adjusted for age: no age-banded table of the
// same quality covers both measures.
const (
	sdnnMean, sdnnLow, sdnnHigh    = 50.0, 32.0, 93.0
	rmssdMean, rmssdLow, rmssdHigh = 42.0, 19.0, 75.0
)

// HeartRateVariabilityCategory classes heartRateVariabilityMs (SDNN) against
// the Nunan 2010 range 32-93 ms, or, without it, RMSSD against 19-75 ms:
// Low below the range, High above it, else Normal.
func HeartRateVariabilityCategory(sdnn, rmssd *float64) *string {
	v, lo, hi := sdnn, sdnnLow, sdnnHigh
	if v == nil {
		v, lo, hi = rmssd, rmssdLow, rmssdHigh
	}
	if v == nil {
		return nil
	}
	switch {
	case *v < lo:
		return label(Low)
	case *v > hi:
		return label(High)
	}
	return label(Normal)
}

// Score bands, pads' own, for every 0-100 score: 80-100 Excellent, 60-79
// Good, 40-59 Fair, 0-39 Poor.
func ScoreCategory(score *float64) *string {
	if score == nil {
		return nil
	}
	switch s := *score; {
	case s >= 80:
		return label("Excellent")
	case s >= 60:
		return label("Good")
	case s >= 40:
		return label("Fair")
	}
	return label("Poor")
}

// HealthCreditCategory uses the FICO score band names on the 300-850 health
// credit scale: 800+ Excellent, 740-799 Very Good, 670-739 Good, 580-669
// Fair, below 580 Poor. A familiar reading of a composite, not a clinical
// standard.
func HealthCreditCategory(credit *float64) *string {
	if credit == nil {
		return nil
	}
	switch c := *credit; {
	case c >= 800:
		return label("Excellent")
	case c >= 740:
		return label("Very Good")
	case c >= 670:
		return label("Good")
	case c >= 580:
		return label("Fair")
	}
	return label("Poor")
}

// StressIndex is a five-level scale read off the relaxation score (itself
// from HRV and resting heart rate): 80-100 Low, 60-79 Mild, 40-59 Moderate,
// 20-39 High, 0-19 Very High.
func StressIndex(relaxation *float64) *string {
	if relaxation == nil {
		return nil
	}
	switch r := *relaxation; {
	case r >= 80:
		return label(Low)
	case r >= 60:
		return label("Mild")
	case r >= 40:
		return label("Moderate")
	case r >= 20:
		return label(High)
	}
	return label(VeryHigh)
}
