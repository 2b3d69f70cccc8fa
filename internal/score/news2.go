package score

// NEWS2 points (0-3) of the four vital signs pads measures, per the chart
// of the Royal College of Physicians, National Early Warning Score (NEWS) 2
// (2017), on whole readings. pads uses NEWS2 only to raise red flags: it is
// an acute-care early-warning score, not a wellness scale.

func news2Respiration(rr float64) int {
	switch {
	case rr <= 8:
		return 3
	case rr <= 11:
		return 1
	case rr <= 20:
		return 0
	case rr <= 24:
		return 2
	}
	return 3
}

// news2SpO2 uses SpO2 scale 1 (people without hypercapnic respiratory
// failure): >=96 0, 94-95 1, 92-93 2, <=91 3.
func news2SpO2(spo2 float64) int {
	switch {
	case spo2 >= 96:
		return 0
	case spo2 >= 94:
		return 1
	case spo2 >= 92:
		return 2
	}
	return 3
}

func news2Systolic(sys float64) int {
	switch {
	case sys <= 90:
		return 3
	case sys <= 100:
		return 2
	case sys <= 110:
		return 1
	case sys <= 219:
		return 0
	}
	return 3
}

func news2Pulse(hr float64) int {
	switch {
	case hr <= 40:
		return 3
	case hr <= 50:
		return 1
	case hr <= 90:
		return 0
	case hr <= 110:
		return 1
	case hr <= 130:
		return 2
	}
	return 3
}

// points is a parameter's NEWS2 points, 0 when the reading is unknown.
func points(v *float64, table func(float64) int) int {
	if v == nil {
		return 0
	}
	return table(*v)
}

// news2Total sums the points of the parameters known. The parameters pads
// does not measure (oxygen given, consciousness, temperature) add nothing,
// so the total is a lower bound of the person's full NEWS2.
func news2Total(v vitals) int {
	return points(v.rr, news2Respiration) + points(v.spo2, news2SpO2) +
		points(v.sys, news2Systolic) + points(v.hr, news2Pulse)
}
