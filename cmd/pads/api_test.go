package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const ada = `"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com"`

func TestSaveChecksInContractOrder(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.token("acme", acmeKey, "storage")
	smile := s.token("acme", acmeKey, "smile")
	expired := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "acme", "aud": "storage", "iss": "pads", "exp": time.Now().Add(-time.Minute).Unix()})
	expired.Header["kid"] = "k1"
	expiredTok, _ := expired.SignedString([]byte("not-the-key-not-the-key-not-the-key"))
	big := `{` + ada + `,"city":"` + strings.Repeat("x", 70<<10) + `"}`

	tests := []struct {
		name    string
		auth    string // "" = no header
		query   string
		ctype   string
		body    string
		status  int
		message string
	}{
		{"no header", "", "non-sensitive", "application/json", `{` + ada + `}`, 401, "No authorization header present"},
		{"empty header", " ", "non-sensitive", "application/json", `{` + ada + `}`, 401, "No authorization header present"},
		{"not bearer", "Basic " + tok, "non-sensitive", "application/json", `{` + ada + `}`, 401, "Invalid token"},
		{"bad signature", "Bearer " + tok[:len(tok)-3] + "abc", "non-sensitive", "application/json", `{` + ada + `}`, 401, "Invalid token"},
		{"forged expired", "Bearer " + expiredTok, "non-sensitive", "application/json", `{` + ada + `}`, 401, "Invalid token"},
		{"smile token on storage API", "Bearer " + smile, "non-sensitive", "application/json", `{` + ada + `}`, 401, "Invalid token"},
		{"token before dataType", "Bearer x", "bogus", "text/plain", `nope`, 401, "Invalid token"},
		{"no dataType", "Bearer " + tok, "", "application/json", `{` + ada + `}`, 400, "Invalid data type. Use 'sensitive' or 'non-sensitive'"},
		{"wrong dataType", "Bearer " + tok, "Sensitive", "application/json", `{` + ada + `}`, 400, "Invalid data type. Use 'sensitive' or 'non-sensitive'"},
		{"dataType before content type", "Bearer " + tok, "x", "text/plain", `nope`, 400, "Invalid data type. Use 'sensitive' or 'non-sensitive'"},
		{"text content type", "Bearer " + tok, "non-sensitive", "text/plain", `{` + ada + `}`, 415, "Content-Type must be application/json"},
		{"no content type", "Bearer " + tok, "non-sensitive", "", `{` + ada + `}`, 415, "Content-Type must be application/json"},
		{"too large", "Bearer " + tok, "non-sensitive", "application/json", big, 413, "Request body too large"},
		{"not json", "Bearer " + tok, "non-sensitive", "application/json", `{"email":`, 400, "Invalid JSON body"},
		{"json array", "Bearer " + tok, "non-sensitive", "application/json", `[]`, 400, "Invalid JSON body"},
		{"other data type's field", "Bearer " + tok, "non-sensitive", "application/json", `{"heartRateBpm":70}`, 400, "Field(s) not allowed for dataType=non-sensitive: heartRateBpm"},
		{"missing", "Bearer " + tok, "sensitive", "application/json", `{"email":"a@b.c"}`, 400, "Missing required field(s): assessmentType, funnelID"},
		{"invalid", "Bearer " + tok, "sensitive", "application/json", `{"assessmentType":"faceScan","funnelID":"globex-main","email":"a@b.c","oxygen":101}`, 400, "Invalid field(s): oxygen"},
		{"unknown funnel", "Bearer " + tok, "non-sensitive", "application/json", `{"assessmentType":"faceScan","funnelID":"nope","email":"a@b.c"}`, 403, "Invalid Client"},
		{"another client's funnel", "Bearer " + tok, "non-sensitive", "application/json", `{"assessmentType":"faceScan","funnelID":"globex-main","email":"a@b.c"}`, 403, "Invalid Client"},
		{"+json content type", "Bearer " + tok, "non-sensitive", "application/vnd.pads+json; charset=utf-8", `{` + ada + `}`, 201, "Patient data created"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{}
			if tt.auth != "" {
				h["Authorization"] = tt.auth
			}
			if tt.ctype != "" {
				h["Content-Type"] = tt.ctype
			}
			q := ""
			if tt.query != "" {
				q = "?dataType=" + tt.query
			}
			r := s.do("POST", "/patient/savePatientData"+q, h, tt.body)
			if r.status != tt.status || r.body["message"] != tt.message {
				t.Fatalf("got %d %s, want %d %q", r.status, r.raw, tt.status, tt.message)
			}
			id := r.header.Get("X-Request-Id")
			if id == "" || (r.status >= 400 && r.body["requestId"] != id) {
				t.Fatalf("request id header %q, body %v", id, r.body["requestId"])
			}
			if tt.message == "Invalid token" && r.header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
				t.Fatalf("WWW-Authenticate = %q", r.header.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestSaveCreatesThenUpdates(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.token("acme", acmeKey, "storage")
	const id = "7d3f8a10-5b2c-4e1d-9a0b-1c2d3e4f5a6b"
	r := s.save(tok, "non-sensitive", `{`+ada+`,"patient_id":"`+strings.ToUpper(id)+`","first_name":"Ada","colour":"blue"}`)
	if r.status != 201 || r.body["message"] != "Patient data created" || r.body["patientUUID"] != id {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	if ig, _ := r.body["ignoredFields"].([]any); len(ig) != 1 || ig[0] != "colour" {
		t.Fatalf("ignoredFields = %v", r.body["ignoredFields"])
	}
	r = s.save(tok, "sensitive", `{`+ada+`,"uuid":"`+id+`","heartRateBpm":"72"}`)
	if r.status != 200 || r.body["message"] != "Patient data updated" || r.body["patientUUID"] != id {
		t.Fatalf("update by uuid: %d %s", r.status, r.raw)
	}
	if _, ok := r.body["ignoredFields"]; ok {
		t.Fatalf("no ignored fields, but the answer lists them: %s", r.raw)
	}
	r = s.save(tok, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ADA@EXAMPLE.COM","city":"London"}`)
	if r.status != 200 || r.body["patientUUID"] != id {
		t.Fatalf("update by email: %d %s", r.status, r.raw)
	}
	r = s.save(tok, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"bob@example.com"}`)
	if r.status != 201 || r.body["patientUUID"] == id || len(r.body["patientUUID"].(string)) != 36 {
		t.Fatalf("create by email: %d %s", r.status, r.raw)
	}
	// The same patientUUID under another client is another client's record.
	g := s.token("globex", globexKey, "storage")
	r = s.save(g, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"globex-main","email":"ada@example.com","uuid":"`+id+`"}`)
	if r.status != 201 {
		t.Fatalf("globex with acme's uuid: %d %s", r.status, r.raw)
	}
}

func TestConcurrentEmailOnlySavesMakeOneRecord(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.token("acme", acmeKey, "storage")
	const n = 50
	ids := make([]string, n)
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Not doHTTP: t.Fatal must not be called off the test goroutine.
			req, _ := newSaveRequest(s.base, tok, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"same@example.com","city":"c%d"}`, i))
			resp, err := httpClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var body struct{ PatientUUID string }
			json.NewDecoder(resp.Body).Decode(&body)
			ids[i], statuses[i] = body.PatientUUID, resp.StatusCode
		})
	}
	wg.Wait()
	created := 0
	for i := range n {
		if ids[i] != ids[0] {
			t.Fatalf("two records: %s and %s", ids[0], ids[i])
		}
		if statuses[i] == 201 {
			created++
		}
	}
	if created != 1 {
		t.Fatalf("%d saves answered 201, want exactly 1", created)
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	r := s.do("POST", "/storage/authenticate", jsonHeader, `{"username":"acme","password":"`+acmeKey+`"}`)
	if r.status != 200 || r.body["tokenType"] != "Bearer" || r.body["expiresIn"] != 3600.0 || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("authenticate: %d %s", r.status, r.raw)
	}
	if r := s.do("POST", "/storage/authenticate", nil, `{"username":"globex","password":"`+globexKey+`"}`); r.status != 200 {
		t.Fatalf("sha256 key, no content type: %d %s", r.status, r.raw)
	}
	unknown := s.do("POST", "/storage/authenticate", jsonHeader, `{"username":"nobody","password":"`+acmeKey+`"}`)
	wrong := s.do("POST", "/storage/authenticate", jsonHeader, `{"username":"acme","password":"`+globexKey+`"}`)
	for _, r := range []response{unknown, wrong} {
		if r.status != 401 || len(r.body) != 2 || r.body["message"] != "Unauthorized" {
			t.Fatalf("bad credentials: %d %s", r.status, r.raw)
		}
	}
	for _, body := range []string{``, `[]`, `{"username":"acme"}`, `{"username":1,"password":"x"}`, `{"username":"acme","password":null}`, `"x"`} {
		if r := s.do("POST", "/storage/authenticate", jsonHeader, body); r.status != 400 {
			t.Errorf("body %q: %d %s", body, r.status, r.raw)
		}
	}
	if r := s.do("POST", "/storage/authenticate", map[string]string{"Content-Type": "text/plain"}, `{}`); r.status != 415 {
		t.Errorf("text/plain: %d", r.status)
	}
	if r := s.do("GET", "/storage/authenticate", nil, ""); r.status != 405 || r.header.Get("Allow") != "POST" {
		t.Errorf("GET: %d Allow=%q", r.status, r.header.Get("Allow"))
	}
}

func TestRepeatedLoginFailuresAreThrottledPerPair(t *testing.T) {
	t.Parallel()
	s := startServer(t) // loginFailures: 3
	for range 3 {
		if r := s.do("POST", "/storage/authenticate", jsonHeader, `{"username":"acme","password":"guess"}`); r.status != 401 {
			t.Fatalf("guess: %d", r.status)
		}
	}
	r := s.do("POST", "/storage/authenticate", jsonHeader, `{"username":"acme","password":"`+acmeKey+`"}`)
	if r.status != 429 || r.body["message"] != "Too many requests" || r.header.Get("Retry-After") == "" {
		t.Fatalf("after 3 failures even the right key waits: %d %s Retry-After=%q", r.status, r.raw, r.header.Get("Retry-After"))
	}
	if r := s.do("POST", "/storage/authenticate", jsonHeader, `{"username":"globex","password":"`+globexKey+`"}`); r.status != 200 {
		t.Fatalf("another username from the same address: %d", r.status)
	}
}

func TestErrorsAndLogsNeverEchoValues(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.token("acme", acmeKey, "storage")
	marker := "Zq9Marker"
	bodies := []string{
		`{` + ada + `,"age":"` + marker + `"}`,
		`{` + ada + `,"dob":"` + marker + `"}`,
		`{` + ada + `,"city":"` + marker + `\u0001"}`,
		`{"assessmentType":"faceScan","funnelID":"acme-main","email":"` + marker + `"}`,
	}
	for _, b := range bodies {
		r := s.save(tok, "non-sensitive", b)
		if r.status != 400 || strings.Contains(r.raw, marker) {
			t.Errorf("%d %s", r.status, r.raw)
		}
	}
	s.save(tok, "sensitive", `{`+ada+`,"heartRateBpm":"187.625","smokerRiskStatus":"`+marker+`"}`)
	logs := s.logs.String()
	for _, secret := range []string{marker, "187.625", "ada@example.com", tok, acmeKey} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain %q", secret)
		}
	}
	if !strings.Contains(logs, `"route":"POST /patient/savePatientData"`) {
		t.Fatal("request log lines missing")
	}
}

func TestHealthReadyAndMetrics(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	if r := s.do("GET", "/healthz", nil, ""); r.status != 200 || r.body["status"] != "ok" {
		t.Fatalf("healthz: %d %s", r.status, r.raw)
	}
	if r := s.do("GET", "/readyz", nil, ""); r.status != 200 || r.body["status"] != "ready" {
		t.Fatalf("readyz: %d %s", r.status, r.raw)
	}
	tok := s.token("acme", acmeKey, "storage")
	s.save(tok, "non-sensitive", `{`+ada+`}`)
	r := s.do("GET", "/metrics", nil, "")
	for _, want := range []string{
		`pads_http_requests_total{method="POST",route="POST /patient/savePatientData",status="201"} 1`,
		`pads_saves_total{data_type="non-sensitive",result="created"} 1`,
		`pads_logins_total{audience="storage",outcome="ok"} 1`,
		`pads_save_batch_size_count 1`,
		`pads_db_commit_duration_seconds_count{outcome="ok"} `,
		`pads_http_request_duration_seconds_bucket{route="POST /storage/authenticate"`,
	} {
		if !strings.Contains(r.raw, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if r := s.do("GET", "/no/such/thing", nil, ""); r.status != http.StatusNotFound || r.body["message"] != "Not found" {
		t.Fatalf("404: %d %s", r.status, r.raw)
	}
	if r := s.do("GET", "/healthz", map[string]string{"X-Request-Id": "trace-123"}, ""); r.header.Get("X-Request-Id") != "trace-123" {
		t.Fatal("a plain caller request id must be kept")
	}
	if r := s.do("GET", "/healthz", map[string]string{"X-Request-Id": "bad id\twith spaces"}, ""); strings.Contains(r.header.Get("X-Request-Id"), " ") {
		t.Fatal("an unsafe caller request id must be replaced")
	}
}

// TestACorrectlySpelledCholesterolIsKeptAndANearMissIsNamed: the seed's
// misspelled fields take their correct spellings, and a key one edit from
// a field is answered with didYouMean beside ignoredFields.
func TestACorrectlySpelledCholesterolIsKeptAndANearMissIsNamed(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.token("acme", acmeKey, "storage")
	r := s.save(tok, "sensitive", `{`+ada+`,"riskTotalCholesterol":190,"riskTriglycerides":130,"riskHdll":55,"colour":"blue"}`)
	if r.status != 201 {
		t.Fatalf("save: %d %s", r.status, r.raw)
	}
	ig, _ := r.body["ignoredFields"].([]any)
	dym, _ := r.body["didYouMean"].(map[string]any)
	if len(ig) != 2 || ig[0] != "colour" || ig[1] != "riskHdll" || len(dym) != 1 || dym["riskHdll"] != "riskHdl" {
		t.Fatalf("ignoredFields %v, didYouMean %v; want the two unknown keys and riskHdll -> riskHdl", ig, dym)
	}
	if r = s.save(tok, "sensitive", `{`+ada+`,"riskHdl":55}`); r.status != 200 || r.body["didYouMean"] != nil {
		t.Fatalf("a save without near misses: %d %s", r.status, r.raw)
	}
}
