package score

// A component maps one input to [0, 1], 1 best. The break points are the
// published thresholds named at each function.

// ramp is the straight line through (x0, y0) and (x1, y1), flat outside.
func ramp(x, x0, y0, x1, y1 float64) float64 {
	switch {
	case x <= x0:
		return y0
	case x >= x1:
		return y1
	}
	return y0 + (y1-y0)*(x-x0)/(x1-x0)
}

// bloodPressure scores the ACC/AHA 2017 category; a normal reading that is
// low (systolic < 90 or diastolic < 60 mmHg, AHA's hypotension) scores 0.7.
func bloodPressure(sys, dia float64) float64 {
	switch *BloodPressureCategory(&sys, &dia) {
	case HypertensiveCrisis:
		return 0
	case HypertensionStage2:
		return 0.3
	case HypertensionStage1:
		return 0.6
	case Elevated:
		return 0.8
	}
	if whole(sys) < 90 || whole(dia) < 60 {
		return 0.7
	}
	return 1
}

// restingHeartRate is 1 from 50 to 60 bpm, falls linearly to 0.4 at 100 and
// to 0 at 130 (all-cause mortality rises steadily with resting heart rate
// above 60: Zhang et al., CMAJ 2016;188:E53-63), and falls below 50, to 0.6
// at 40 and 0 at 20 (sinus bradycardia is < 50 bpm: ACC/AHA/HRS 2018
// bradycardia guideline; NEWS2 gives its maximum 3 points at <= 40).
func restingHeartRate(hr float64) float64 {
	if hr < 40 {
		return ramp(hr, 20, 0, 40, 0.6)
	}
	if hr < 50 {
		return ramp(hr, 40, 0.6, 50, 1)
	}
	if hr <= 100 {
		return ramp(hr, 60, 1, 100, 0.4)
	}
	return ramp(hr, 100, 0.4, 130, 0)
}

// hrv scores RMSSD, or without it SDNN, against Nunan 2010: 1 at or above
// the population mean, 0.5 at the bottom of the normal range, 0 at a third
// of that bottom (RMSSD 42/19/6.3 ms, SDNN 50/32/10.7 ms).
func hrv(sdnn, rmssd *float64) (float64, bool) {
	v, mean, lo := rmssd, rmssdMean, rmssdLow
	if v == nil {
		v, mean, lo = sdnn, sdnnMean, sdnnLow
	}
	if v == nil {
		return 0, false
	}
	if *v >= lo {
		return ramp(*v, lo, 0.5, mean, 1), true
	}
	return ramp(*v, lo/3, 0, lo, 0.5), true
}

// news2 holds the NEWS2 points (0-3) of the four vital signs pads measures,
// per the Royal College of Physicians chart (2017), on whole readings.
func news2Respiration(rr float64) int {
	switch r := whole(rr); {
	case r <= 8:
		return 3
	case r <= 11:
		return 1
	case r <= 20:
		return 0
	case r <= 24:
		return 2
	}
	return 3
}

// news2SpO2 uses SpO2 scale 1 (patients without hypercapnic respiratory
// failure): >=96 0, 94-95 1, 92-93 2, <=91 3.
func news2SpO2(spo2 float64) int {
	switch s := whole(spo2); {
	case s >= 96:
		return 0
	case s >= 94:
		return 1
	case s >= 92:
		return 2
	}
	return 3
}

func news2Systolic(sys float64) int {
	switch s := whole(sys); {
	case s <= 90:
		return 3
	case s <= 100:
		return 2
	case s <= 110:
		return 1
	case s <= 219:
		return 0
	}
	return 3
}

func news2Pulse(hr float64) int {
	switch h := whole(hr); {
	case h <= 40:
		return 3
	case h <= 50:
		return 1
	case h <= 90:
		return 0
	case h <= 110:
		return 1
	case h <= 130:
		return 2
	}
	return 3
}

// bmiClass scores the WHO adult BMI classes (WHO Technical Report Series
// 894, 2000): normal 18.5-24.9 is 1; overweight 0.7; obesity I, II, III 0.5,
// 0.3, 0.1; thinness mild (17-18.49) 0.7, moderate (16-16.99) 0.5, severe
// (<16) 0.3.
func bmiClass(bmi float64) float64 {
	switch {
	case bmi < 16:
		return 0.3
	case bmi < 17:
		return 0.5
	case bmi < 18.5:
		return 0.7
	case bmi < 25:
		return 1
	case bmi < 30:
		return 0.7
	case bmi < 35:
		return 0.5
	case bmi < 40:
		return 0.3
	}
	return 0.1
}

// Lipids, NCEP ATP III classification (JAMA 2001;285:2486-97), mg/dL.

func totalCholesterol(tc float64) float64 {
	switch {
	case tc < 200: // desirable
		return 1
	case tc < 240: // borderline high
		return 0.6
	}
	return 0.2 // high
}

func ldl(v float64) float64 {
	switch {
	case v < 100: // optimal
		return 1
	case v < 130: // near optimal
		return 0.85
	case v < 160: // borderline high
		return 0.6
	case v < 190: // high
		return 0.35
	}
	return 0.1 // very high
}

func hdl(v float64) float64 {
	switch {
	case v >= 60: // high (protective)
		return 1
	case v >= 40:
		return 0.7
	}
	return 0.3 // low
}

func triglycerides(v float64) float64 {
	switch {
	case v < 150: // normal
		return 1
	case v < 200: // borderline high
		return 0.7
	case v < 500: // high
		return 0.4
	}
	return 0.1 // very high
}

// metabolicSyndrome scores the number of the five harmonized metabolic
// syndrome criteria met (Alberti et al., Circulation 2009;120:1640-5):
// 1 - n/5, with n held to 0-5.
func metabolicSyndrome(n float64) float64 {
	return 1 - ramp(n, 0, 0, 5, 5)/5
}

// tenYearCVD scores the 10-year ASCVD risk bands of the ACC/AHA 2019 primary
// prevention guideline (Arnett et al., Circulation 2019;140:e596): low <5%
// 1, borderline 5-7.4% 0.75, intermediate 7.5-19.9% 0.45, high >=20% 0.15.
func tenYearCVD(pct float64) float64 {
	switch {
	case pct < 5:
		return 1
	case pct < 7.5:
		return 0.75
	case pct < 20:
		return 0.45
	}
	return 0.15
}

func yesNo(v bool, yes float64) float64 {
	if v {
		return yes
	}
	return 1
}
