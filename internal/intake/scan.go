package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// value is one member value of the body's top-level object, as raw bytes.
type value struct {
	kind    byte   // '"' string, '0' number, 't' true, 'f' false, 'n' null, '{' or '[' composite
	raw     []byte // the literal; for strings, with its quotes
	escaped bool   // a string holding backslash escapes
}

// str returns a string value's text, unescaped. ok is false for invalid
// UTF-8, which no field accepts.
func (v value) str() (string, bool) {
	if !v.escaped {
		s := v.raw[1 : len(v.raw)-1]
		return string(s), utf8.Valid(s)
	}
	var s string
	if json.Unmarshal(v.raw, &s) != nil {
		return "", false
	}
	return s, !containsRuneError(s)
}

// field returns the catalogue index of the field a key names, reading an
// unescaped key in place: most keys name a field, and none then becomes a
// string. It reports false for an escaped or unknown key, which the caller
// reads with str.
func (v value) field() (int, bool) {
	if v.escaped {
		return 0, false
	}
	return index(v.raw[1 : len(v.raw)-1])
}

// blank reports whether a string value is empty or only white space,
// without making a string of it when it holds no escapes.
func (v value) blank() bool {
	if !v.escaped {
		return len(bytes.TrimSpace(v.raw[1:len(v.raw)-1])) == 0
	}
	s, _ := v.str()
	return strings.TrimSpace(s) == ""
}

func containsRuneError(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError {
			return true
		}
	}
	return false
}

var errNotObject = errors.New("not one JSON object")

// members calls fn for each member of body's top-level object, in order,
// or fails for a body that is not one valid JSON object (fn may have been
// called for the members before the fault).
//
// The walk checks the JSON as it goes (strings, numbers and literals by
// hand; a body holding a nested object or array goes through
// encoding/json's json.Valid whole at its end, which also bounds its
// depth as encoding/json does), finds
// where each key and value begins and ends, so a key given twice is seen,
// and looks keys up without making strings of them. It stays hand-written
// because encoding/json's Decoder (tokens and RawMessage, stdlibMembers in
// the tests) makes the whole decoder 3.9 times as dear: 24.3 us against 6.2
// us per load-test body (BenchmarkDecode, docs/performance.md); checking
// the whole body with json.Valid first was a fifth of the decoder's time.
// FuzzMembers checks it against encoding/json.
func members(body []byte, fn func(key value, v value)) error {
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return errNotObject
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return end(body, i+1)
	}
	nested := false // a nested value: checked by json.Valid at the end
	for {
		if i == len(body) || body[i] != '"' {
			return errNotObject
		}
		key, next, ok := scanValue(body, i)
		if !ok {
			return errNotObject
		}
		i = skipSpace(body, next)
		if i == len(body) || body[i] != ':' {
			return errNotObject
		}
		v, next, ok := scanValue(body, skipSpace(body, i+1))
		if !ok {
			return errNotObject
		}
		fn(key, v)
		nested = nested || v.kind == '{' || v.kind == '['
		i = skipSpace(body, next)
		switch {
		case i == len(body):
			return errNotObject
		case body[i] == '}':
			if err := end(body, i+1); err != nil || !nested || json.Valid(body) {
				return err
			}
			return errNotObject
		case body[i] != ',':
			return errNotObject
		}
		i = skipSpace(body, i+1)
	}
}

// end accepts the body when only white space follows the object, which
// ends at b[i-1].
func end(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errNotObject
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the JSON value starting at b[i] and the index just
// past it, or false when none valid starts there.
func scanValue(b []byte, i int) (value, int, bool) {
	if i == len(b) {
		return value{}, i, false
	}
	switch c := b[i]; c {
	case '"':
		end, esc, ok := scanString(b, i)
		return value{kind: '"', raw: b[i:end], escaped: esc}, end, ok
	case '{', '[':
		end, ok := scanComposite(b, i)
		// Rare in a save: its inside is checked by members, at the end.
		return value{kind: c, raw: b[i:end]}, end, ok
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	}
	end, ok := scanNumber(b, i)
	return value{kind: '0', raw: b[i:end]}, end, ok
}

// literal reads the literal word at b[i].
func literal(b []byte, i int, word string) (value, int, bool) {
	end := i + len(word)
	if end > len(b) || string(b[i:end]) != word {
		return value{}, i, false
	}
	return value{kind: word[0], raw: b[i:end]}, end, true
}

// scanNumber returns the index past the JSON number at b[i]:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		j = digits(b, j)
	default:
		return j, false
	}
	if j < len(b) && b[j] == '.' {
		k := digits(b, j+1)
		if k == j+1 {
			return k, false
		}
		j = k
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := digits(b, j)
		if k == j {
			return k, false
		}
		j = k
	}
	return j, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// scanString returns the index past the JSON string starting at b[i],
// whether it holds escapes, and false when it is not a valid one (a
// control character, a bad escape, no closing quote). Like encoding/json,
// it lets invalid UTF-8 through: the fields say what they accept.
func scanString(b []byte, i int) (int, bool, bool) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, esc, true
		case c < 0x20:
			return j, esc, false
		case c == '\\':
			esc = true
			j++
			if j == len(b) {
				return j, esc, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) || !isHex(b[j+1]) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) {
					return j, esc, false
				}
				j += 4
			default:
				return j, esc, false
			}
		}
	}
	return len(b), esc, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanComposite returns the index past the object or array at b[i],
// matching brackets outside strings, and false when it does not close.
// What is between them is checked by the caller.
func scanComposite(b []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, _, ok := scanString(b, j)
			if !ok {
				return end, false
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return len(b), false
}
