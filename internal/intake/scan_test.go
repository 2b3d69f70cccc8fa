package intake

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzMembers checks the object walk against encoding/json: it accepts
// exactly the bodies that are one valid JSON object, the keys and values
// it hands over for a body it accepts are valid, and for an object
// encoding/json decodes, the members found, decoded by encoding/json,
// equal encoding/json's own decoding of the body (the last of two equal
// keys wins there).
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b":[1,{"c":"]"}], "d":"x\"y\\", "e":null, "f":true, "g":false, "h":-1.5e+3 } `,
		`{"a":{"b":{"c":[[],{}]}},"a":"dup"}`, `[1]`, `"s"`, `{"k\u0041":"v"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// One object, valid: json.Valid, since Unmarshal also refuses
		// valid numbers out of float64's range (1E700).
		isObject := json.Valid(body) && bytes.TrimLeft(body, " \t\r\n")[0] == '{'
		var want map[string]any
		decoded := json.Unmarshal(body, &want) == nil && want != nil
		got := map[string]any{}
		var found [][2][]byte
		err := members(body, func(k, v value) { found = append(found, [2][]byte{k.raw, v.raw}) })
		if (err == nil) != isObject {
			t.Fatalf("members err = %v, encoding/json object = %v", err, isObject)
		}
		if err != nil {
			return // fn may have been called before the fault
		}
		for _, m := range found {
			if !json.Valid(m[0]) || m[0][0] != '"' || !json.Valid(m[1]) {
				t.Fatalf("member %q: %q is not a JSON value", m[0], m[1])
			}
			var key string
			var val any
			json.Unmarshal(m[0], &key)
			json.Unmarshal(m[1], &val)
			got[key] = val
		}
		if isObject && decoded && !reflect.DeepEqual(got, want) {
			t.Fatalf("members = %v, encoding/json = %v", got, want)
		}
	})
}

// TestTheWalkBoundsNestingAsEncodingJSONDoes: a nested value is checked
// alone, one level less deep than the body; the body is as deep as
// encoding/json allows (10000 levels), and not one more.
func TestTheWalkBoundsNestingAsEncodingJSONDoes(t *testing.T) {
	for _, tc := range []struct {
		arrays int
		valid  bool
	}{{9999, true}, {10000, false}} {
		body := []byte(`{"a":1,"x":` + strings.Repeat("[", tc.arrays) + strings.Repeat("]", tc.arrays) + `}`)
		if json.Valid(body) != tc.valid {
			t.Fatalf("%d arrays deep: json.Valid says %v, the test expects %v", tc.arrays, !tc.valid, tc.valid)
		}
		if err := members(body, func(k, v value) {}); (err == nil) != tc.valid {
			t.Errorf("an object holding %d nested arrays: members err = %v, want valid %v", tc.arrays, err, tc.valid)
		}
	}
}
