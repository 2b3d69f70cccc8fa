package intake

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzMembers checks the object walk against encoding/json: for any valid
// object, the members found, decoded by encoding/json, equal encoding/json's
// own decoding of the body (the last of two equal keys wins there).
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b":[1,{"c":"]"}], "d":"x\"y\\", "e":null, "f":true, "g":false, "h":-1.5e+3 } `,
		`{"a":{"b":{"c":[[],{}]}},"a":"dup"}`, `[1]`, `"s"`, `{"k\u0041":"v"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var want map[string]any
		isObject := json.Unmarshal(body, &want) == nil && want != nil
		got := map[string]any{}
		err := members(body, func(k, v value) {
			var key string
			var val any
			if json.Unmarshal(k.raw, &key) != nil || json.Unmarshal(v.raw, &val) != nil {
				t.Fatalf("member %q: %q is not a JSON value", k.raw, v.raw)
			}
			got[key] = val
		})
		if (err == nil) != isObject {
			t.Fatalf("members err = %v, encoding/json object = %v", err, isObject)
		}
		if isObject && !reflect.DeepEqual(got, want) {
			t.Fatalf("members = %v, encoding/json = %v", got, want)
		}
	})
}
