package intake

// A key that names no field is ignored, and listed back in ignoredFields;
// when it is one edit away from a field's name or alias it is most likely
// that field misspelled, and the answer says which (didYouMean), so a
// value sent under a typo is not lost unseen.

// Suggest returns the canonical name of the field whose name or alias is
// one edit (a letter added, removed, changed, or two neighbours swapped)
// away from key, compared folded as Lookup does; "" when none is, or when
// two fields are equally near. A key that names a field has no suggestion.
func Suggest(key string) string {
	var buf [maxKeyLen]byte
	k, ok := fold(key, &buf)
	if !ok || len(k) < minSuggestLen {
		return ""
	}
	if _, known := lookup[string(k)]; known {
		return ""
	}
	found := -1
	for name, i := range lookup {
		if !oneEdit(string(k), name) {
			continue
		}
		if found >= 0 && found != i {
			return "" // ambiguous: say nothing rather than guess
		}
		found = i
	}
	if found < 0 {
		return ""
	}
	return Fields[found].Name
}

// minSuggestLen keeps short keys ("ip2", "x") from being near everything.
const minSuggestLen = 4

// oneEdit reports whether a and b differ by exactly one insertion,
// deletion, substitution or swap of two neighbouring letters.
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	switch len(b) - len(a) {
	case 0:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		if i == len(a) {
			return false // equal
		}
		if a[i+1:] == b[i+1:] {
			return true // one substitution
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // one swap
	case 1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}
