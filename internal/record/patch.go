package record

import "reflect"

// Patch is one save's change to a record, as a JSON merge patch: Values
// holds the fields given a value; the fields marked with Clear were given
// as null.
type Patch struct {
	Values  Fields
	cleared uint64 // bit i: field i is cleared
}

// Clear marks field i as given null: the save clears it.
func (p *Patch) Clear(i int) { p.cleared |= 1 << i }

// Clears reports whether the patch clears field i.
func (p *Patch) Clears(i int) bool { return p.cleared&(1<<i) != 0 }

// Apply applies p to f: a value overwrites, a clear removes, a field the
// patch does not name keeps its value, and Latest notes which field last
// gave each quantity. The values are shared, never written through.
func (f *Fields) Apply(p *Patch) {
	dst, src := reflect.ValueOf(f).Elem(), reflect.ValueOf(&p.Values).Elem()
	for i := range NumFields() {
		switch v := src.Field(i); {
		case !v.IsNil():
			dst.Field(i).Set(v)
		case p.Clears(i):
			dst.Field(i).SetZero()
		}
	}
	f.Latest = f.Latest.after(&p.Values)
}
