package score

import "slices"

// Equal reports whether r and o are the same results: every score,
// category, flag and withheld reason equal. Two results of one record
// that are Equal say the same thing to every receiver, so a later save
// whose result is Equal to the one delivered changes nothing a receiver
// was told. Pointers compare by value, never by address.
func (r Result) Equal(o Result) bool {
	for i, p := range r.numbers() {
		if !sameNumber(p, o.numbers()[i]) {
			return false
		}
	}
	for i, p := range r.texts() {
		if !sameText(p, o.texts()[i]) {
			return false
		}
	}
	return slices.Equal(r.Flags, o.Flags) && r.Withheld.equal(o.Withheld) && r.Partial == o.Partial
}

// numbers are the result's scores, in a fixed order.
func (r *Result) numbers() [7]*float64 {
	return [...]*float64{r.Activity, r.Sleep, r.Equilibrium, r.Metabolism, r.Overall, r.Relaxation, r.HealthCredit}
}

// texts are the result's categories, in a fixed order.
func (r *Result) texts() [13]*string {
	return [...]*string{r.BloodPressureCategory, r.HeartRateCategory, r.HeartRateVariabilityCategory,
		r.BreathingRateCategory, r.OxygenSaturationCategory, r.ActivityCategory, r.SleepCategory,
		r.EquilibriumCategory, r.MetabolismCategory, r.OverallHealthCategory, r.RelaxationCategory,
		r.HealthCreditCategory, r.StressIndex}
}

func sameNumber(a, b *float64) bool { return a == b || a != nil && b != nil && *a == *b }

func sameText(a, b *string) bool { return a == b || a != nil && b != nil && *a == *b }
