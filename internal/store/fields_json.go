package store

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/pads-dev/pads/internal/record"
)

// appendFields appends f as a JSON object. Record values are only strings,
// float64s and bools (intake guarantees it, and json.Unmarshal of a sealed
// record gives back the same kinds), so this direct encoder replaces a
// reflection-driven json.Marshal on the save path. Saver.Open reads the
// result back with decodeFields.
func appendFields(dst []byte, f record.Fields) []byte {
	dst = append(dst, '{')
	first := true
	for k, v := range f {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, k)
		dst = append(dst, ':')
		switch v := v.(type) {
		case string:
			dst = appendString(dst, v)
		case float64:
			dst = strconv.AppendFloat(dst, v, 'g', -1, 64)
		case bool:
			dst = strconv.AppendBool(dst, v)
		default:
			panic("store: record field of unexpected type") // a programming error upstream
		}
	}
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string; s is valid UTF-8.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// decodeFields reads a sealed record's fields back. What appendFields
// writes (an object of strings, numbers and booleans, without spaces) it
// reads directly: encoding/json's Unmarshal into a map was 14% of pads'
// CPU in the update load test, the largest single cost of an update. Any
// other input goes to encoding/json, so the result, or the error, is
// always the one json.Unmarshal gives.
func decodeFields(raw []byte) (record.Fields, error) {
	if f, ok := decodeFlat(raw); ok {
		return f, nil
	}
	var f record.Fields
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return f, nil
}

// decodeFlat decodes raw if it is exactly an object whose values are
// strings, numbers or booleans, with no white space and no key given twice.
func decodeFlat(raw []byte) (record.Fields, bool) {
	if len(raw) < 2 || raw[0] != '{' {
		return nil, false
	}
	f := make(record.Fields, bytes.Count(raw, []byte{':'}))
	if raw[1] == '}' {
		return f, len(raw) == 2
	}
	for i := 1; ; {
		key, next, ok := flatString(raw, i)
		if !ok || next >= len(raw) || raw[next] != ':' {
			return nil, false
		}
		if _, dup := f[key]; dup {
			return nil, false // encoding/json keeps the last; leave it to it
		}
		var v any
		if v, i, ok = flatValue(raw, next+1); !ok {
			return nil, false
		}
		f[key] = v
		switch {
		case i < len(raw) && raw[i] == ',':
			i++
		case i == len(raw)-1 && raw[i] == '}':
			return f, true
		default:
			return nil, false
		}
	}
}

// flatValue reads the string, number or boolean at raw[i].
func flatValue(raw []byte, i int) (any, int, bool) {
	if i >= len(raw) {
		return nil, i, false
	}
	switch c := raw[i]; {
	case c == '"':
		return flatString(raw, i)
	case bytes.HasPrefix(raw[i:], []byte("true")):
		return true, i + 4, true
	case bytes.HasPrefix(raw[i:], []byte("false")):
		return false, i + 5, true
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(raw) && (raw[j] >= '0' && raw[j] <= '9' || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || raw[j] == '+' || raw[j] == '-') {
			j++
		}
		n, ok := jsonNumber(raw[i:j])
		return n, j, ok
	}
	return nil, i, false
}

// flatString reads the string at raw[i] if it has no escapes, no control
// characters and is valid UTF-8 (appendFields escapes control characters;
// encoding/json would unescape the others and mend invalid UTF-8).
func flatString(raw []byte, i int) (string, int, bool) {
	if i >= len(raw) || raw[i] != '"' {
		return "", i, false
	}
	end := bytes.IndexByte(raw[i+1:], '"')
	if end < 0 {
		return "", i, false
	}
	s := raw[i+1 : i+1+end]
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return "", i, false
		}
	}
	if !utf8.Valid(s) {
		return "", i, false
	}
	return string(s), i + end + 2, true
}

// jsonNumber parses b if it is a JSON number (strconv.ParseFloat also
// takes forms JSON does not, such as "+1", "1.", ".5" or "0x1p-2").
func jsonNumber(b []byte) (float64, bool) {
	i := 0
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i == len(b) || b[i] < '0' || b[i] > '9' {
			return 0, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) || b[i] < '0' || b[i] > '9' {
			return 0, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i != len(b) {
		return 0, false
	}
	n, err := strconv.ParseFloat(string(b), 64)
	return n, err == nil
}
