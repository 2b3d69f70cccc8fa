package store

import (
	"strconv"

	"github.com/pads-dev/pads/internal/record"
)

// appendFields appends f as a JSON object. Record values are only strings,
// float64s and bools (intake guarantees it, and json.Unmarshal of a sealed
// record gives back the same kinds), so this direct encoder replaces a
// reflection-driven json.Marshal on the save path. Saver.Open reads the
// result back with encoding/json.
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
