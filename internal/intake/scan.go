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

// members calls fn for each member of body's top-level object, in order.
//
// encoding/json validates the whole body first (json.Valid allocates
// nothing); the walk below may then assume well-formed JSON and only find
// where each key and value begins and ends, so a key given twice is seen,
// and keys are looked up without becoming strings. It stays hand-written
// because encoding/json's Decoder (tokens and RawMessage, stdlibMembers in
// the tests) makes the whole decoder 3.2 times as dear: 24.5 us against 7.7
// us per load-test body (BenchmarkDecode), 23% of a save's CPU instead of
// 7% (docs/performance.md). FuzzMembers checks it against encoding/json.
func members(body []byte, fn func(key value, v value)) error {
	if !json.Valid(body) {
		return errNotObject
	}
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return errNotObject
	}
	i = skipSpace(body, i+1)
	if body[i] == '}' {
		return nil
	}
	for {
		key, end := scanValue(body, i)
		i = skipSpace(body, end) // at ':'
		i = skipSpace(body, i+1) // at the value
		v, end := scanValue(body, i)
		fn(key, v)
		i = skipSpace(body, end)
		if body[i] == '}' {
			return nil
		}
		i = skipSpace(body, i+1) // past ','
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the valid JSON value starting at b[i] and the index
// just past it.
func scanValue(b []byte, i int) (value, int) {
	switch c := b[i]; c {
	case '"':
		end, esc := scanString(b, i)
		return value{kind: '"', raw: b[i:end], escaped: esc}, end
	case '{', '[':
		end := scanComposite(b, i)
		return value{kind: c, raw: b[i:end]}, end
	case 't':
		return value{kind: 't', raw: b[i : i+4]}, i + 4
	case 'f':
		return value{kind: 'f', raw: b[i : i+5]}, i + 5
	case 'n':
		return value{kind: 'n', raw: b[i : i+4]}, i + 4
	}
	j := i
	for j < len(b) && isNumberByte(b[j]) {
		j++
	}
	return value{kind: '0', raw: b[i:j]}, j
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// scanString returns the index past the string starting at b[i] and
// whether it holds escapes.
func scanString(b []byte, i int) (int, bool) {
	esc := false
	for j := i + 1; ; j++ {
		switch b[j] {
		case '\\':
			esc = true
			j++
		case '"':
			return j + 1, esc
		}
	}
}

// scanComposite returns the index past the object or array at b[i].
func scanComposite(b []byte, i int) int {
	depth := 0
	for j := i; ; j++ {
		switch b[j] {
		case '"':
			end, _ := scanString(b, j)
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
}
