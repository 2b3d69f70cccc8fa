package score

import (
	"math"
	"strconv"
)

// reading is the value behind a flag about m, as the rules read it: the
// whole vital signs, BMI to 0.1, the other numbers as given, with their
// units; "declared" for a declared condition.
func reading(m Measurement, in *Inputs, v vitals) string {
	switch m {
	case BloodPressure:
		switch {
		case v.sys != nil && v.dia != nil:
			return num(*v.sys) + "/" + num(*v.dia) + " mmHg"
		case v.sys != nil:
			return "systolic " + num(*v.sys) + " mmHg"
		case v.dia != nil:
			return "diastolic " + num(*v.dia) + " mmHg"
		}
	case HeartRateReading:
		return unit(v.hr, " /min")
	case Rhythm:
		if v.hr != nil {
			return "irregular, " + num(*v.hr) + " /min"
		}
		return "irregular"
	case BreathingRate:
		return unit(v.rr, " /min")
	case OxygenSaturation:
		return unit(v.spo2, " %")
	case BodyMassIndex:
		if in.BMI != nil {
			return num(math.Round(*in.BMI*10+1e-9)/10) + " kg/m²"
		}
	case TotalCholesterol:
		return unit(in.TotalChol, " mg/dL")
	case LDLCholesterol:
		return unit(in.LDL, " mg/dL")
	case HDLCholesterol:
		return unit(in.HDL, " mg/dL")
	case TriglycerideLevel:
		return unit(in.Triglycerides, " mg/dL")
	case MetabolicSyndrome:
		return unit(in.MetSComponents, " of 5")
	case TenYearRisk:
		return unit(in.TenYearCVD, " %")
	case HypertensionHistory, DiabetesHistory:
		return "declared"
	case SmokingHistory:
		return CurrentSmoker
	case Combined:
		return "NEWS2 " + strconv.Itoa(news2Total(v))
	}
	return ""
}

func unit(v *float64, u string) string {
	if v == nil {
		return ""
	}
	return num(*v) + u
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
