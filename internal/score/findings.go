package score

// The findings: readings outside their normal adult range, risk numbers
// in the guidelines' raised classes, and declared conditions. Each caps
// the overall score by its severity. They are read for known adults (18
// or over), BMI and lipids included (see partsOf).

func finding(id, label string, m Measurement, s Severity, interp, guideline string) Flag {
	return Flag{id, label, m, s, interp, guideline, false, ""}
}

// The findings, in the order results list them within a severity.
var (
	FindingBPStage2   = finding("bp-stage-2", "Blood pressure in the stage 2 range (140 or more, or 90 or more)", BloodPressure, Moderate, High, guideACCAHA2017)
	FindingBPStage1   = finding("bp-stage-1", "Blood pressure in the stage 1 range (130-139, or 80-89)", BloodPressure, Mild, High, guideACCAHA2017)
	FindingBPElevated = finding("bp-elevated", "Elevated blood pressure (systolic 120-129)", BloodPressure, Mild, High, guideACCAHA2017)

	FindingHeartRateHigh = finding("heart-rate-high", "Resting heart rate above 100", HeartRateReading, Moderate, High, guideSVT2015)
	FindingHeartRateLow  = finding("heart-rate-low", "Resting heart rate below 50", HeartRateReading, Mild, Low, guideBrady2018)
	FindingIrregular     = Flag{"irregular-rhythm", "Irregular heartbeats reported; an ECG read by a clinician is advised", Rhythm, Moderate, Abnormal, guideAF2023, true, ""}

	FindingBreathingHigh = finding("breathing-rate-high", "Breathing rate above 20", BreathingRate, Moderate, High, guideNEWS2)
	FindingBreathingLow  = finding("breathing-rate-low", "Breathing rate below 12", BreathingRate, Mild, Low, guideNEWS2)
	FindingSpO2Below95   = finding("spo2-below-95", "SpO2 below 95%", OxygenSaturation, Moderate, Low, guideWHOOximetry)

	FindingBMIUnder    = finding("bmi-underweight", "BMI below 18.5 (underweight)", BodyMassIndex, Moderate, Low, guideWHOBMI)
	FindingBMIObesity2 = finding("bmi-obesity-2", "BMI 35 or more (obesity class II or III)", BodyMassIndex, Moderate, High, guideWHOBMI)
	FindingBMIObesity1 = finding("bmi-obesity-1", "BMI 30 to 34.9 (obesity class I)", BodyMassIndex, Mild, High, guideWHOBMI)

	FindingTCHigh        = finding("total-cholesterol-high", "Total cholesterol 240 mg/dL or more (high)", TotalCholesterol, Moderate, High, guideNCEP)
	FindingTCBorderline  = finding("total-cholesterol-borderline", "Total cholesterol 200-239 mg/dL (borderline high)", TotalCholesterol, Mild, High, guideNCEP)
	FindingLDLVeryHigh   = finding("ldl-very-high", "LDL cholesterol 190 mg/dL or more (very high)", LDLCholesterol, Moderate, High, guideNCEP)
	FindingLDLHigh       = finding("ldl-high", "LDL cholesterol 160-189 mg/dL (high)", LDLCholesterol, Moderate, High, guideNCEP)
	FindingLDLBorderline = finding("ldl-borderline", "LDL cholesterol 130-159 mg/dL (borderline high)", LDLCholesterol, Mild, High, guideNCEP)
	FindingHDLLow        = finding("hdl-low", "HDL cholesterol below 40 mg/dL (low)", HDLCholesterol, Mild, Low, guideNCEP)
	FindingTGVeryHigh    = finding("triglycerides-very-high", "Triglycerides 500 mg/dL or more (very high)", TriglycerideLevel, Moderate, High, guideNCEP)
	FindingTGHigh        = finding("triglycerides-high", "Triglycerides 200-499 mg/dL (high)", TriglycerideLevel, Moderate, High, guideNCEP)
	FindingTGBorderline  = finding("triglycerides-borderline", "Triglycerides 150-199 mg/dL (borderline high)", TriglycerideLevel, Mild, High, guideNCEP)
	FindingMetS          = finding("metabolic-syndrome", "3 or more of the 5 metabolic syndrome criteria", MetabolicSyndrome, Moderate, Abnormal, guideMetS)
	FindingRiskHigh      = finding("ten-year-risk-high", "10-year cardiovascular risk 20% or more (high)", TenYearRisk, Moderate, High, guidePrevention19)
	FindingRiskIntermed  = finding("ten-year-risk-intermediate", "10-year cardiovascular risk 7.5% to 19.9% (intermediate)", TenYearRisk, Mild, High, guidePrevention19)
	FindingHypertension  = finding("hypertension-declared", "Hypertension declared (or blood pressure medication)", HypertensionHistory, Moderate, Abnormal, guideACCAHA2017)
	FindingDiabetes      = finding("diabetes-declared", "Diabetes declared", DiabetesHistory, Moderate, Abnormal, guideNCEP) // a coronary heart disease risk equivalent
	FindingSmoker        = finding("current-smoker", "Current smoker", SmokingHistory, Mild, Abnormal, guidePrevention19)
)

// bpClass is the ACC/AHA 2017 category of the readings known, on whole
// readings: with both, the higher of the two; with one alone, only a
// category that reading proves (a systolic of 125 is at least Elevated,
// a diastolic of 70 alone proves nothing). "" when none.
func bpClass(v vitals) string {
	switch {
	case v.sys != nil && v.dia != nil:
		return BloodPressureCategory(*v.sys, *v.dia)
	case v.sys != nil && *v.sys >= 120:
		return BloodPressureCategory(*v.sys, 0) // 0: no diastolic to raise it
	case v.dia != nil && *v.dia >= 80:
		return BloodPressureCategory(0, *v.dia)
	}
	return ""
}

var findingRules = []rule{
	{FindingBPStage2, adultAge, func(_ *Inputs, v vitals) string { return when(bpClass(v) == Stage2Reading, High) }},
	{FindingBPStage1, adultAge, func(_ *Inputs, v vitals) string { return when(bpClass(v) == Stage1Reading, High) }},
	{FindingBPElevated, adultAge, func(_ *Inputs, v vitals) string { return when(bpClass(v) == ElevatedReading, High) }},

	{FindingHeartRateHigh, adultAge, func(_ *Inputs, v vitals) string { return when(is(v.hr, func(h float64) bool { return h > 100 }), High) }},
	{FindingHeartRateLow, adultAge, func(_ *Inputs, v vitals) string { return when(is(v.hr, func(h float64) bool { return h < 50 }), Low) }},
	{FindingIrregular, adultAge, func(_ *Inputs, v vitals) string { return when(v.irregular, Abnormal) }},

	{FindingBreathingHigh, adultAge, func(_ *Inputs, v vitals) string { return when(is(v.rr, func(r float64) bool { return r > 20 }), High) }},
	{FindingBreathingLow, adultAge, func(_ *Inputs, v vitals) string { return when(is(v.rr, func(r float64) bool { return r < 12 }), Low) }},
	{FindingSpO2Below95, adultAge, func(_ *Inputs, v vitals) string { return when(is(v.spo2, func(s float64) bool { return s < 95 }), Low) }},

	{FindingBMIUnder, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.BMI, func(b float64) bool { return b < 18.5 }), Low)
	}},
	{FindingBMIObesity2, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.BMI, func(b float64) bool { return b >= 35 }), High)
	}},
	{FindingBMIObesity1, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.BMI, func(b float64) bool { return b >= 30 && b < 35 }), High)
	}},

	{FindingTCHigh, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.TotalChol, func(x float64) bool { return x >= 240 }), High)
	}},
	{FindingTCBorderline, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.TotalChol, func(x float64) bool { return x >= 200 && x < 240 }), High)
	}},
	{FindingLDLVeryHigh, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.LDL, func(x float64) bool { return x >= 190 }), High)
	}},
	{FindingLDLHigh, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.LDL, func(x float64) bool { return x >= 160 && x < 190 }), High)
	}},
	{FindingLDLBorderline, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.LDL, func(x float64) bool { return x >= 130 && x < 160 }), High)
	}},
	{FindingHDLLow, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.HDL, func(x float64) bool { return x < 40 }), Low)
	}},
	{FindingTGVeryHigh, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.Triglycerides, func(x float64) bool { return x >= 500 }), High)
	}},
	{FindingTGHigh, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.Triglycerides, func(x float64) bool { return x >= 200 && x < 500 }), High)
	}},
	{FindingTGBorderline, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.Triglycerides, func(x float64) bool { return x >= 150 && x < 200 }), High)
	}},
	{FindingMetS, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.MetSComponents, func(n float64) bool { return n >= 3 }), Abnormal)
	}},
	{FindingRiskHigh, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.TenYearCVD, func(x float64) bool { return x >= 20 }), High)
	}},
	{FindingRiskIntermed, adultAge, func(in *Inputs, _ vitals) string {
		return when(is(in.TenYearCVD, func(x float64) bool { return x >= 7.5 && x < 20 }), High)
	}},
	{FindingHypertension, adultAge, func(in *Inputs, _ vitals) string { return when(isTrue(in.Hypertension), Abnormal) }},
	{FindingDiabetes, adultAge, func(in *Inputs, _ vitals) string { return when(isTrue(in.Diabetic), Abnormal) }},
	{FindingSmoker, adultAge, func(in *Inputs, _ vitals) string { return when(isTrue(in.Smoker), Abnormal) }},
}
