package intake

import (
	"github.com/pads-dev/pads/internal/record"
)

// Kind is how a field's value is read and checked.
type Kind int

// The kinds of inbound field values.
const (
	KindString Kind = iota
	KindNumber
	KindBool
	KindDate  // YYYY-MM-DD, a real calendar date, not in the future
	KindUUID  // RFC 4122 text form, stored lower-case
	KindEmail // one bare address
	KindIP    // IPv4 or IPv6 address
)

// Scope says which data types may carry a field.
type Scope int

// The scopes of the field catalogue.
const (
	Both Scope = iota
	NonSensitiveOnly
	SensitiveOnly
)

// Field describes one canonical inbound field.
type Field struct {
	Name     string
	Kind     Kind
	Scope    Scope
	Required bool
	Aliases  []string
	Min, Max float64 // numbers: the plausibility range, inclusive
	MaxLen   int     // strings: the longest accepted value, in characters

	slot int // the number of the record.Fields field of the same name
}

// Allows reports whether a call of data type dt may carry the field.
func (f *Field) Allows(dt record.DataType) bool {
	switch f.Scope {
	case NonSensitiveOnly:
		return dt == record.NonSensitive
	case SensitiveOnly:
		return dt == record.Sensitive
	}
	return true
}

func str(name string, scope Scope, maxLen int, aliases ...string) Field {
	return Field{Name: name, Kind: KindString, Scope: scope, MaxLen: maxLen, Aliases: aliases}
}

func num(name string, min, max float64) Field {
	return Field{Name: name, Kind: KindNumber, Scope: SensitiveOnly, Min: min, Max: max}
}

// also adds aliases to a field.
func (f Field) also(aliases ...string) Field {
	f.Aliases = append(f.Aliases, aliases...)
	return f
}

func flag(name string, scope Scope) Field {
	return Field{Name: name, Kind: KindBool, Scope: scope}
}

// Fields is the catalogue of every inbound field, in the seed's order. The
// ranges are plausibility bounds (what a human body or a face-scan model can
// produce), not clinical normal ranges; docs/api.md lists them.
var Fields = []Field{
	{Name: "assessmentType", Kind: KindString, Required: true, MaxLen: 64},
	{Name: "funnelID", Kind: KindString, Required: true, MaxLen: 128},
	{Name: "email", Kind: KindEmail, Required: true, MaxLen: 254},
	{Name: "patientUUID", Kind: KindUUID, Aliases: []string{"uuid", "patientId"}},
	{Name: "IPAddress", Kind: KindIP, Aliases: []string{"ip", "ipAddr"}},

	str("firstName", NonSensitiveOnly, 100),
	str("lastName", NonSensitiveOnly, 100),
	str("phoneNumber", NonSensitiveOnly, 32, "phone"),
	str("zipCode", NonSensitiveOnly, 16, "zip", "postalCode", "postcode"),
	flag("contactConsent", NonSensitiveOnly),
	str("biologicalSex", NonSensitiveOnly, 32, "sex"),
	{Name: "age", Kind: KindNumber, Scope: NonSensitiveOnly, Min: 0, Max: 130},
	{Name: "dateOfBirth", Kind: KindDate, Scope: NonSensitiveOnly, Aliases: []string{"dob", "birthDate"}},
	str("city", NonSensitiveOnly, 100),
	str("state", NonSensitiveOnly, 100),
	flag("formCompleted", NonSensitiveOnly),
	flag("assessmentCompleted", Both),

	num("heightFt", 0, 8),
	num("heightIn", 0, 96), // inches on top of heightFt, or a whole height in inches; 8 ft at most
	num("heightCm", 30, 275),
	num("weightLb", 2, 1400),
	num("weightKg", 1, 650),
	flag("diabetic", SensitiveOnly),
	flag("smoker", SensitiveOnly),
	flag("hypertension", SensitiveOnly),
	flag("hypertensionMedication", SensitiveOnly),
	num("heartRateBpm", 20, 300),
	num("heartRateVariabilityMs", 0, 1000),
	flag("irregularHeartBeats", SensitiveOnly),
	num("systolicBloodPressureMmhg", 40, 300),
	num("diastolicBloodPressureMmhg", 20, 200),
	num("breathingRateBpm", 2, 80),
	// The seed misspells these two; a client spelling them right loses
	// nothing.
	num("riskTotalCholestrol", 0, 1000).also("riskTotalCholesterol", "totalCholesterol"),
	num("riskHdl", 0, 300),
	num("riskLdl", 0, 1000),
	num("riskTriglycerdies", 0, 5000).also("riskTriglycerides", "triglycerides"),
	str("smokerRiskStatus", SensitiveOnly, 64),
	num("riskBmi", 10, 80), // score.MinBMI-MaxBMI: the BMIs a living adult can have
	num("oxygen", 50, 100),
	num("riskTenYrCvd", 0, 100),
	num("riskFraminghamScore", -30, 100),
	num("riskBapwv", 0, 10000),
	num("riskRestingHeartRate", 20, 300),
	num("riskMetSComp", 0, 5), // a count of the 5 harmonized metabolic syndrome criteria
	num("rmssd", 0, 1000),
	num("ibi", 200, 3000), // 60000/ibi within heartRateBpm's 20-300 per minute
}

// maxFields bounds the catalogue, so Decode can keep values in arrays.
const maxFields = 64

// lookup maps a folded name (see fold) to the index of its field. Making
// it also ties each field to its record.Fields field.
var lookup = func() map[string]int {
	if len(Fields) > maxFields {
		panic("intake: raise maxFields")
	}
	m := make(map[string]int)
	for i := range Fields {
		f := &Fields[i]
		slot, ok := record.FieldIndex(f.Name)
		if !ok {
			panic("intake: record.Fields has no field " + f.Name)
		}
		f.slot = slot
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			var buf [maxKeyLen]byte
			k, _ := fold(n, &buf)
			if _, dup := m[string(k)]; dup {
				panic("intake: two fields fold to " + string(k))
			}
			m[string(k)] = i
		}
	}
	return m
}()

// maxKeyLen is the longest key that can name a field; longer keys are
// unknown without being folded.
const maxKeyLen = 64

// Lookup returns the canonical field an inbound key names, if any.
func Lookup(key string) (*Field, bool) {
	i, ok := index(key)
	if !ok {
		return nil, false
	}
	return &Fields[i], true
}

func index[K string | []byte](key K) (int, bool) {
	var buf [maxKeyLen]byte
	k, ok := fold(key, &buf)
	if !ok {
		return 0, false
	}
	i, ok := lookup[string(k)] // no allocation: the compiler looks up []byte keys in place
	return i, ok
}

// fold removes '_', '-', '.' and spaces and lower-cases ASCII letters, so
// that first_name, FirstName and first-name all name firstName. It works in
// buf and reports false for a key too long or not ASCII: no field has such a
// name, and ASCII-only folding keeps look-alike Unicode letters (the Kelvin
// sign folds to 'k') from naming fields.
func fold[K string | []byte](key K, buf *[maxKeyLen]byte) ([]byte, bool) {
	n := 0
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			continue
		case c >= 0x80 || n == maxKeyLen:
			return nil, false
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return buf[:n], true
}
