package httpapi_test

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

// resign signs tok's claims again with method under kid: a token that is
// valid but for its algorithm or key id.
func resign(t *testing.T, tok string, method jwt.SigningMethod, kid string, key any) string {
	t.Helper()
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(tok, claims); err != nil {
		t.Fatal(err)
	}
	re := jwt.NewWithClaims(method, claims)
	re.Header["kid"] = kid
	s, err := re.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// POST /patient/savePatientData answers the first failing check of the
// contract's order (PRODUCT.md section 2), each with its status and
// message; rows with two faults prove which check comes first.
func TestSaveChecksInContractOrder(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	tok := a.token("acme", acmeKey, "storage")
	smile := a.token("acme", acmeKey, "smile")
	a.skew(-2 * time.Hour) // tokens live an hour
	expired := a.token("acme", acmeKey, "storage")
	a.skew(10 * time.Minute)
	early := a.token("acme", acmeKey, "storage")
	a.skew(0)
	signed := func(method jwt.SigningMethod, kid string, key any) string { return resign(t, tok, method, kid, key) }
	big := `{` + ada + `,"city":"` + strings.Repeat("x", 70<<10) + `"}`
	const json, ns, s = "application/json", "non-sensitive", "sensitive"
	invalid := "Invalid token"
	dataType := "Invalid data type. Use 'sensitive' or 'non-sensitive'"

	tests := []struct {
		name    string
		auth    string // "" = no header
		query   string // "" = no dataType
		ctype   string
		body    string
		status  int
		message string
	}{
		{"no header", "", ns, json, `{` + ada + `}`, 401, "No authorization header present"},
		{"empty header", " ", ns, json, `{` + ada + `}`, 401, "No authorization header present"},
		{"no header before everything", "", "bogus", "text/plain", `nope`, 401, "No authorization header present"},
		{"not bearer", "Basic " + tok, ns, json, `{` + ada + `}`, 401, invalid},
		{"bearer without a token", "Bearer", ns, json, `{` + ada + `}`, 401, invalid},
		{"bad signature", "Bearer " + tok[:len(tok)-3] + "abc", ns, json, `{` + ada + `}`, 401, invalid},
		{"another key under our kid", "Bearer " + signed(jwt.SigningMethodHS256, "k1", []byte(strings.Repeat("x", 32))), ns, json, `{` + ada + `}`, 401, invalid},
		{"unknown kid", "Bearer " + signed(jwt.SigningMethodHS256, "k9", jwtKey.Secret), ns, json, `{` + ada + `}`, 401, invalid},
		{"alg HS512", "Bearer " + signed(jwt.SigningMethodHS512, "k1", jwtKey.Secret), ns, json, `{` + ada + `}`, 401, invalid},
		{"alg none", "Bearer " + signed(jwt.SigningMethodNone, "k1", jwt.UnsafeAllowNoneSignatureType), ns, json, `{` + ada + `}`, 401, invalid},
		{"expired", "Bearer " + expired, ns, json, `{` + ada + `}`, 401, invalid},
		{"not yet valid", "Bearer " + early, ns, json, `{` + ada + `}`, 401, invalid},
		{"smile token on storage API", "Bearer " + smile, ns, json, `{` + ada + `}`, 401, invalid},
		{"token before dataType", "Bearer x", "bogus", "text/plain", `nope`, 401, invalid},
		{"no dataType", "Bearer " + tok, "", json, `{` + ada + `}`, 400, dataType},
		{"wrong dataType", "Bearer " + tok, "Sensitive", json, `{` + ada + `}`, 400, dataType},
		{"an event is not a dataType", "Bearer " + tok, "results-updated", json, `{` + ada + `}`, 400, dataType},
		{"dataType before content type", "Bearer " + tok, "x", "text/plain", `nope`, 400, dataType},
		{"text content type", "Bearer " + tok, ns, "text/plain", `{` + ada + `}`, 415, "Content-Type must be application/json"},
		{"no content type", "Bearer " + tok, ns, "", `{` + ada + `}`, 415, "Content-Type must be application/json"},
		{"content type before size", "Bearer " + tok, ns, "text/plain", big, 415, "Content-Type must be application/json"},
		{"too large", "Bearer " + tok, ns, json, big, 413, "Request body too large"},
		{"size before JSON", "Bearer " + tok, ns, json, `{"email":` + strings.Repeat(" ", 70<<10), 413, "Request body too large"},
		{"not json", "Bearer " + tok, ns, json, `{"email":`, 400, "Invalid JSON body"},
		{"json array", "Bearer " + tok, ns, json, `[]`, 400, "Invalid JSON body"},
		{"two objects", "Bearer " + tok, ns, json, `{` + ada + `}{}`, 400, "Invalid JSON body"},
		{"other data type's field", "Bearer " + tok, ns, json, `{"heartRateBpm":70}`, 400, "Field(s) not allowed for dataType=non-sensitive: heartRateBpm"},
		{"other data type's field before missing", "Bearer " + tok, s, json, `{"firstName":"Ada"}`, 400, "Field(s) not allowed for dataType=sensitive: firstName"},
		{"missing", "Bearer " + tok, s, json, `{"email":"a@b.c"}`, 400, "Missing required field(s): assessmentType, funnelID"},
		{"missing before invalid", "Bearer " + tok, s, json, `{"email":"a@b.c","oxygen":101}`, 400, "Missing required field(s): assessmentType, funnelID"},
		{"invalid", "Bearer " + tok, s, json, `{"assessmentType":"faceScan","funnelID":"acme-main","email":"a@b.c","oxygen":101}`, 400, "Invalid field(s): oxygen"},
		{"invalid before funnel", "Bearer " + tok, s, json, `{"assessmentType":"faceScan","funnelID":"globex-main","email":"a@b.c","oxygen":101}`, 400, "Invalid field(s): oxygen"},
		{"unknown funnel", "Bearer " + tok, ns, json, `{"assessmentType":"faceScan","funnelID":"nope","email":"a@b.c"}`, 403, "Invalid Client"},
		{"another client's funnel", "Bearer " + tok, ns, json, `{"assessmentType":"faceScan","funnelID":"globex-main","email":"a@b.c"}`, 403, "Invalid Client"},
		{"+json content type", "Bearer " + tok, ns, "application/vnd.pads+json; charset=utf-8", `{` + ada + `}`, 201, "Patient data created"},
		{"the same patient again", "Bearer " + tok, s, json, `{` + ada + `,"heartRateBpm":72}`, 200, "Patient data updated"},
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
			r := a.do("POST", "/patient/savePatientData"+q, h, tt.body)
			if r.status != tt.status || r.body["message"] != tt.message {
				t.Fatalf("got %d %s, want %d %q", r.status, r.raw, tt.status, tt.message)
			}
			id := r.header.Get("X-Request-Id")
			if id == "" || (r.status >= 400 && r.body["requestId"] != id) {
				t.Fatalf("request id header %q, body %v", id, r.body["requestId"])
			}
			// Only a token pads signed whose time ran out says why.
			wantAuth := `Bearer error="invalid_token"`
			if tt.auth == "Bearer "+expired {
				wantAuth += `, error_description="token expired"`
			}
			if tt.message == invalid && r.header.Get("WWW-Authenticate") != wantAuth {
				t.Fatalf("WWW-Authenticate = %q, want %q", r.header.Get("WWW-Authenticate"), wantAuth)
			}
		})
	}
}

// An invalid field's answer names it, with a reason per field, and never
// echoes the value sent.
func TestInvalidFieldsAreListedWithoutTheirValues(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	tok := a.token("acme", acmeKey, "storage")
	r := a.save(tok, "sensitive", `{`+ada+`,"oxygen":101,"heartRateBpm":"Zq9"}`)
	errs, _ := r.body["errors"].([]any)
	if r.status != 400 || r.body["message"] != "Invalid field(s): heartRateBpm, oxygen" || len(errs) != 2 || strings.Contains(r.raw, "Zq9") {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	for _, e := range errs {
		if f, _ := e.(map[string]any); f["field"] == "" || f["message"] == "" {
			t.Errorf("error entry %v lacks field or message", e)
		}
	}
}

func TestSaveCreatesThenUpdates(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	tok := a.token("acme", acmeKey, "storage")
	const id = "7d3f8a10-5b2c-4e1d-9a0b-1c2d3e4f5a6b"
	r := a.save(tok, "non-sensitive", `{`+ada+`,"patient_id":"`+strings.ToUpper(id)+`","first_name":"Ada","colour":"blue"}`)
	if r.status != 201 || r.body["message"] != "Patient data created" || r.body["patientUUID"] != id {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	if ig, _ := r.body["ignoredFields"].([]any); len(ig) != 1 || ig[0] != "colour" {
		t.Fatalf("ignoredFields = %v", r.body["ignoredFields"])
	}
	r = a.save(tok, "sensitive", `{`+ada+`,"uuid":"`+id+`","heartRateBpm":"72"}`)
	if r.status != 200 || r.body["message"] != "Patient data updated" || r.body["patientUUID"] != id {
		t.Fatalf("update by uuid: %d %s", r.status, r.raw)
	}
	if _, ok := r.body["ignoredFields"]; ok {
		t.Fatalf("no ignored fields, but the answer lists them: %s", r.raw)
	}
	r = a.save(tok, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ADA@EXAMPLE.COM","city":"London"}`)
	if r.status != 200 || r.body["patientUUID"] != id {
		t.Fatalf("update by email: %d %s", r.status, r.raw)
	}
	r = a.save(tok, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"bob@example.com"}`)
	if r.status != 201 || r.body["patientUUID"] == id || len(r.body["patientUUID"].(string)) != 36 {
		t.Fatalf("create by email: %d %s", r.status, r.raw)
	}
	// The same patientUUID under another client is another client's record.
	g := a.token("globex", globexKey, "storage")
	r = a.save(g, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"globex-main","email":"ada@example.com","uuid":"`+id+`"}`)
	if r.status != 201 {
		t.Fatalf("globex with acme's uuid: %d %s", r.status, r.raw)
	}
}

func TestConcurrentEmailOnlySavesMakeOneRecord(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	tok := a.token("acme", acmeKey, "storage")
	const n = 50
	ids := make([]string, n)
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Not a.do: t.Fatal must not be called off the test goroutine.
			body := fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"same@example.com","city":"c%d"}`, i)
			req, _ := http.NewRequest("POST", a.base+"/patient/savePatientData?dataType=non-sensitive", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var got struct{ PatientUUID string }
			json.NewDecoder(resp.Body).Decode(&got)
			ids[i], statuses[i] = got.PatientUUID, resp.StatusCode
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

func TestErrorsAndLogsNeverEchoValues(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	tok := a.token("acme", acmeKey, "storage")
	marker := "Zq9Marker"
	bodies := []string{
		`{` + ada + `,"age":"` + marker + `"}`,
		`{` + ada + `,"dob":"` + marker + `"}`,
		`{` + ada + `,"city":"` + marker + `\u0001"}`,
		`{"assessmentType":"faceScan","funnelID":"acme-main","email":"` + marker + `"}`,
	}
	for _, b := range bodies {
		r := a.save(tok, "non-sensitive", b)
		if r.status != 400 || strings.Contains(r.raw, marker) {
			t.Errorf("%d %s", r.status, r.raw)
		}
	}
	a.save(tok, "sensitive", `{`+ada+`,"heartRateBpm":"187.625","smokerRiskStatus":"`+marker+`"}`)
	logs := a.logs.String()
	for _, secret := range []string{marker, "187.625", "ada@example.com", tok, acmeKey} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain %q", secret)
		}
	}
	if !strings.Contains(logs, `"route":"POST /patient/savePatientData"`) {
		t.Fatal("request log lines missing")
	}
}

// TestACorrectlySpelledCholesterolIsKeptAndANearMissIsNamed: the seed's
// misspelled fields take their correct spellings, and a key one edit from
// a field is answered with didYouMean beside ignoredFields.
func TestACorrectlySpelledCholesterolIsKeptAndANearMissIsNamed(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	tok := a.token("acme", acmeKey, "storage")
	r := a.save(tok, "sensitive", `{`+ada+`,"riskTotalCholesterol":190,"riskTriglycerides":130,"riskHdll":55,"colour":"blue"}`)
	if r.status != 201 {
		t.Fatalf("save: %d %s", r.status, r.raw)
	}
	ig, _ := r.body["ignoredFields"].([]any)
	dym, _ := r.body["didYouMean"].(map[string]any)
	if len(ig) != 2 || ig[0] != "colour" || ig[1] != "riskHdll" || len(dym) != 1 || dym["riskHdll"] != "riskHdl" {
		t.Fatalf("ignoredFields %v, didYouMean %v; want the two unknown keys and riskHdll -> riskHdl", ig, dym)
	}
	if r = a.save(tok, "sensitive", `{`+ada+`,"riskHdl":55}`); r.status != 200 || r.body["didYouMean"] != nil {
		t.Fatalf("a save without near misses: %d %s", r.status, r.raw)
	}
}
