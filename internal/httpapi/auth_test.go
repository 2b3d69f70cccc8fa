package httpapi_test

import (
	"testing"
)

// Both authenticate routes answer a token for a client's key, the same
// 401 for an unknown username and a wrong key, 400 for a body that is not
// an object of two strings, 415 for a body declared as something else,
// and 405 with Allow for another method.
func TestAuthenticate(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	for _, path := range []string{"/storage/authenticate", "/padsSmile/authenticate"} {
		t.Run(path, func(t *testing.T) {
			tests := []struct {
				name   string
				header map[string]string
				body   string
				status int
			}{
				{"a plain key", jsonHeader, `{"username":"acme","password":"` + acmeKey + `"}`, 200},
				{"a sha256 key, no content type", nil, `{"username":"globex","password":"` + globexKey + `"}`, 200},
				{"an unknown username", jsonHeader, `{"username":"nobody","password":"` + acmeKey + `"}`, 401},
				{"another client's key", jsonHeader, `{"username":"acme","password":"` + globexKey + `"}`, 401},
				{"no body", jsonHeader, ``, 400},
				{"an array", jsonHeader, `[]`, 400},
				{"no password", jsonHeader, `{"username":"acme"}`, 400},
				{"a number for a username", jsonHeader, `{"username":1,"password":"x"}`, 400},
				{"a null password", jsonHeader, `{"username":"acme","password":null}`, 400},
				{"a string", jsonHeader, `"x"`, 400},
				{"text/plain", map[string]string{"Content-Type": "text/plain"}, `{}`, 415},
			}
			for _, tt := range tests {
				r := a.do("POST", path, tt.header, tt.body)
				if r.status != tt.status {
					t.Errorf("%s: %d %s, want %d", tt.name, r.status, r.raw, tt.status)
					continue
				}
				switch tt.status {
				case 200:
					if r.body["tokenType"] != "Bearer" || r.body["expiresIn"] != 3600.0 || r.body["token"] == "" || r.header.Get("Cache-Control") != "no-store" {
						t.Errorf("%s: %s, Cache-Control %q", tt.name, r.raw, r.header.Get("Cache-Control"))
					}
				case 401:
					// Which part was wrong does not show.
					if len(r.body) != 2 || r.body["message"] != "Unauthorized" || r.body["requestId"] != r.header.Get("X-Request-Id") {
						t.Errorf("%s: %s", tt.name, r.raw)
					}
				}
			}
			if r := a.do("GET", path, nil, ""); r.status != 405 || r.header.Get("Allow") != "POST" || r.body["message"] != "Method not allowed" {
				t.Errorf("GET: %d Allow=%q %s", r.status, r.header.Get("Allow"), r.raw)
			}
		})
	}
}

// Repeated failures for one (username, address) are slowed down, even
// for the right key; another username from the same address is not.
func TestRepeatedLoginFailuresAreThrottledPerPair(t *testing.T) {
	t.Parallel()
	a := newAPI(t) // loginFailures: 3
	for range 3 {
		if r := a.do("POST", "/storage/authenticate", jsonHeader, `{"username":"acme","password":"guess"}`); r.status != 401 {
			t.Fatalf("guess: %d", r.status)
		}
	}
	r := a.do("POST", "/storage/authenticate", jsonHeader, `{"username":"acme","password":"`+acmeKey+`"}`)
	if r.status != 429 || r.body["message"] != "Too many requests" || r.header.Get("Retry-After") == "" {
		t.Fatalf("after 3 failures even the right key waits: %d %s Retry-After=%q", r.status, r.raw, r.header.Get("Retry-After"))
	}
	if r := a.do("POST", "/storage/authenticate", jsonHeader, `{"username":"globex","password":"`+globexKey+`"}`); r.status != 200 {
		t.Fatalf("another username from the same address: %d", r.status)
	}
}
