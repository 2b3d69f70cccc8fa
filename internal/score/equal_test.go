package score_test

import (
	"reflect"
	"testing"

	"github.com/pads-dev/pads/internal/score"
)

// TestEqualSeesEveryField changes each field of a result in turn, through
// reflection so that a field added to Result later is covered too, and
// expects Equal to see every change; copies of the same values at other
// addresses are Equal.
func TestEqualSeesEveryField(t *testing.T) {
	t.Parallel()
	base := score.Compute(normalAdult())
	if !base.Equal(score.Compute(normalAdult())) {
		t.Fatal("two computations of one record differ")
	}
	typ := reflect.TypeFor[score.Result]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		changed := score.Compute(normalAdult())
		v := reflect.ValueOf(&changed).Elem().Field(i)
		if !mutate(v) {
			t.Fatalf("field %s of type %s: teach this test to change it", f.Name, f.Type)
		}
		if base.Equal(changed) || changed.Equal(base) {
			t.Errorf("Equal misses a change of %s", f.Name)
		}
	}
}

// mutate changes v to a different value; false if it cannot.
func mutate(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			return true
		}
		e := reflect.New(v.Type().Elem())
		e.Elem().Set(v.Elem())
		if !mutate(e.Elem()) {
			return false
		}
		v.Set(e)
		return true
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.New(v.Type().Elem()).Elem()))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() && mutate(v.Field(i)) {
				return true
			}
		}
		return false
	default:
		return false
	}
	return true
}

func TestEqualComparesValuesNotAddresses(t *testing.T) {
	t.Parallel()
	a, b := score.Compute(normalAdult()), score.Compute(normalAdult())
	if a.Overall == b.Overall {
		t.Fatal("the test needs two results whose pointers differ")
	}
	if !a.Equal(b) {
		t.Error("equal values at different addresses must be Equal")
	}
	var zero score.Result
	if !zero.Equal(score.Result{}) || zero.Equal(a) {
		t.Error("zero results")
	}
}
