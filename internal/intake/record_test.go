package intake_test

import (
	"reflect"
	"testing"

	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
)

// TestCatalogueAndRecordAgree keeps the field catalogue and record.Fields
// one list: the same names in the same order, each Go field of the type
// its kind decodes to.
func TestCatalogueAndRecordAgree(t *testing.T) {
	t.Parallel()
	if len(intake.Fields) != record.NumFields() {
		t.Fatalf("the catalogue has %d fields, record.Fields %d", len(intake.Fields), record.NumFields())
	}
	goTypes := map[intake.Kind]reflect.Type{
		intake.KindString: reflect.TypeFor[*string](), intake.KindDate: reflect.TypeFor[*string](),
		intake.KindUUID: reflect.TypeFor[*string](), intake.KindEmail: reflect.TypeFor[*string](),
		intake.KindIP: reflect.TypeFor[*string](), intake.KindNumber: reflect.TypeFor[*float64](),
		intake.KindBool: reflect.TypeFor[*bool](),
	}
	st := reflect.TypeFor[record.Fields]()
	for i, f := range intake.Fields {
		if name := record.FieldName(i); name != f.Name {
			t.Errorf("field %d: catalogue %q, record.Fields %q", i, f.Name, name)
			continue
		}
		if got, want := st.Field(i).Type, goTypes[f.Kind]; got != want {
			t.Errorf("%s: record.Fields.%s is %s, its kind decodes to %s", f.Name, st.Field(i).Name, got, want)
		}
	}
}
