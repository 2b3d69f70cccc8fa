package score

// A component maps one input to [0, 1], 1 best. The break points are the
// published thresholds named at each function; where a curve falls
// between two of them, it falls in a straight line.

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

// normalRange is 1 inside lo-hi and falls in straight lines to 0 at zeroLo
// below and zeroHi above: a wellness curve around a normal adult range.
func normalRange(x, zeroLo, lo, hi, zeroHi float64) float64 {
	switch {
	case x < lo:
		return ramp(x, zeroLo, 0, lo, 1)
	case x > hi:
		return ramp(x, hi, 1, zeroHi, 0)
	}
	return 1
}

// The vital-sign wellness components, on whole readings. Each is 1 over
// the normal adult range and 0 where the red flags begin.

// breathing: normal 12-20 per minute; 0 at 8 and 25, where NEWS2 gives 3
// points.
func breathing(rr float64) float64 { return normalRange(rr, 8, 12, 20, 25) }

// oxygen: normal 95% or more (WHO 2011); 0 at 90%, hypoxaemia.
func oxygen(spo2 float64) float64 { return ramp(spo2, 90, 0, 95, 1) }

// systolic: 90-139 mmHg, neither hypotension (NHLBI) nor the stage 2 range
// (ACC/AHA 2017); 0 at 70 and at 180. Hypertension itself is scored by
// bloodPressure, in the cardiovascular part of the overall score.
func systolic(sys float64) float64 { return normalRange(sys, 70, 90, 139, 180) }

// heartRate: normal 50-100 bpm (ACC/AHA/HRS 2018 and 2015); 0 at 130 above.
// Below 50 it falls gently, to 0 at 30: resting rates in the 40s are
// common in fit adults, and below 40 is a red flag in any case.
func heartRate(hr float64) float64 { return normalRange(hr, 30, 50, 100, 130) }

// hrv scores an HRV value against the Nunan 2010 norms of its measure: 1
// at or above the population mean, 0.5 at the bottom of the normal range,
// 0 at a third of that bottom (SDNN 50/32/10.7 ms, RMSSD 42/19/6.3 ms).
func hrv(ms float64, m HRVMeasure) float64 {
	mean, low, _ := hrvNorms(m)
	if ms >= low {
		return ramp(ms, low, 0.5, mean, 1)
	}
	return ramp(ms, low/3, 0, low, 0.5)
}

// bloodPressure scores the ACC/AHA 2017 category of each reading and takes
// the lower, as the guideline takes the higher category: systolic < 90 0,
// 90-119 1, 120-129 0.8, 130-139 0.6, 140-180 0.3, > 180 0; diastolic < 60
// 0, 60-79 1, 80-89 0.6, 90-120 0.3, > 120 0. Each reading's part only
// falls as it leaves its normal range, so the component is monotone in
// both: a lower systolic never scores less unless it drops below 90.
func bloodPressure(sys, dia float64) float64 {
	return min(systolicPart(sys), diastolicPart(dia))
}

func systolicPart(s float64) float64 {
	switch {
	case s < 90 || s > 180:
		return 0
	case s >= 140:
		return 0.3
	case s >= 130:
		return 0.6
	case s >= 120:
		return 0.8
	}
	return 1
}

func diastolicPart(d float64) float64 {
	switch {
	case d < 60 || d > 120:
		return 0
	case d >= 90:
		return 0.3
	case d >= 80:
		return 0.6
	}
	return 1
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
