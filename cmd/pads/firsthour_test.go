package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
)

// TestAnExpiredTokenSaysSoAndAForgedOneDoesNot: both answer the contract's
// 401 Invalid token; only the expired one (signed by pads) says
// error_description="token expired", and the log line names each reason.
func TestAnExpiredTokenSaysSoAndAForgedOneDoesNot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "pads.yaml")
	os.WriteFile(path, []byte(testConfig(filepath.Join(dir, "data"))), 0o600)
	s := startServerAt(t, path)
	cfg, err := config.Load(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	keys, _, err := config.LoadKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	twoHoursAgo := func() time.Time { return time.Now().Add(-2 * time.Hour) }
	issue := func(secret []byte) string {
		toks, err := auth.NewTokens(cfg.ServiceName, []auth.Key{{ID: keys.JWT[0].ID, Secret: secret}}, twoHoursAgo)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := toks.Issue("acme", auth.AudienceStorage, time.Hour, config.DigestAPIKey(acmeKey))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	tests := []struct {
		name, token, header, logged string
	}{
		{"expired", issue(keys.JWT[0].Secret), `Bearer error="invalid_token", error_description="token expired"`, `"refused":"token expired"`},
		{"forged and expired", issue([]byte("not-the-key-of-this-pads-0123456789")), `Bearer error="invalid_token"`, `"refused":"invalid token`},
	}
	for _, tt := range tests {
		r := s.save(tt.token, "non-sensitive", `{`+ada+`}`)
		if r.status != 401 || r.body["message"] != "Invalid token" || r.header.Get("WWW-Authenticate") != tt.header {
			t.Errorf("%s: %d %s, WWW-Authenticate %q; want 401 Invalid token and %q", tt.name, r.status, r.raw, r.header.Get("WWW-Authenticate"), tt.header)
		}
		id := r.header.Get("X-Request-Id")
		waitFor(t, func() bool { return strings.Contains(s.logs.String(), id) })
		for line := range strings.Lines(s.logs.String()) {
			if strings.Contains(line, `"request_id":"`+id+`"`) && strings.Contains(line, `"msg":"request"`) && !strings.Contains(line, tt.logged) {
				t.Errorf("%s: the request's log line lacks %s:\n%s", tt.name, tt.logged, line)
			}
		}
	}
}

// TestTheOpenAPIDocumentIsServed: GET /openapi.yaml is docs/openapi.yaml,
// the document the routes test keeps equal to what pads serves.
func TestTheOpenAPIDocumentIsServed(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	want, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := s.do("GET", "/openapi.yaml", nil, "")
	if r.status != 200 || r.raw != string(want) || !strings.HasPrefix(r.header.Get("Content-Type"), "application/yaml") {
		t.Fatalf("GET /openapi.yaml: %d %s, %d bytes (want %d)", r.status, r.header.Get("Content-Type"), len(r.raw), len(want))
	}
}

// TestAPatientSavedWithoutADestinationIsDeliveredOnceOneExists: acme has
// no destination when a patient is saved; a destination added and
// reloaded gets the patient's results with pads deliveries replay
// --patient, audited by a keyed reference, once, and a staging record
// never reaches the production destination.
func TestAPatientSavedWithoutADestinationIsDeliveredOnceOneExists(t *testing.T) {
	t.Parallel()
	path := deliveryConfig(t, "", "")
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	uuid := completeForm(t, s, tok, "acme-main", "ada@example.com")
	completeAssessment(t, s, tok, "acme-main", "ada@example.com")
	staged := completeForm(t, s, tok, "acme-staging", "bob@example.com")

	rc := newReceiver(t, nil)
	text := strings.Replace(readFile(t, path), "    destinations:\n      []\n", "    destinations:\n"+webhookDest(rc.srv.URL, "        id: late\n"), 1)
	os.WriteFile(path, []byte(text), 0o600)
	if out, err := runCLI("reload", "--config", path); err != nil {
		t.Fatalf("pads reload: %v\n%s", err, out)
	}
	replay := func(uuid string) (string, error) {
		return runCLI("deliveries", "replay", "--client", "acme", "--patient", uuid, "--destination", "late", "--config", path)
	}
	out, err := replay(uuid)
	if err != nil || !strings.Contains(out, "2 results of the patient through the destination's environment: 2 enqueued for late") {
		t.Fatalf("replay of the patient: %v\n%s", err, out)
	}
	got := rc.wait(t, 2, 20*time.Second)
	for i, want := range []string{"non-sensitive", "sensitive"} {
		if got[i].header.Get("X-Pads-Event") != want || !strings.Contains(string(got[i].body), uuid) {
			t.Errorf("delivery %d: event %q, want %s of %s", i, got[i].header.Get("X-Pads-Event"), want, uuid)
		}
	}
	if out, err := replay(uuid); err != nil || !strings.Contains(out, "0 enqueued for late, 2 had a delivery there already") {
		t.Fatalf("a second replay: %v\n%s", err, out)
	}
	if out, err := replay(staged); err != nil || !strings.Contains(out, "0 results") {
		t.Fatalf("a staging record to a production destination: %v\n%s", err, out)
	}
	for _, tt := range []struct{ args []string }{
		{[]string{"--client", "acme", "--patient", uuid, "--destination", "nowhere"}},
		{[]string{"--client", "acme", "--patient", "00000000-0000-4000-8000-000000000009", "--destination", "late"}},
		{[]string{"--client", "acme", "--patient", "not-a-uuid", "--destination", "late"}},
	} {
		if _, err := runCLI(append(append([]string{"deliveries", "replay"}, tt.args...), "--config", path)...); err == nil {
			t.Errorf("pads deliveries replay %v succeeded", tt.args)
		}
	}
	audit, _ := runCLI("audit", "--config", path)
	if !strings.Contains(audit, "deliveries.deliver_patient") || strings.Contains(audit, uuid) {
		t.Fatalf("the audit log must name the action, never the uuid:\n%s", audit)
	}
	if len(rc.all()) != 2 {
		t.Fatalf("the destination got %d deliveries, want 2", len(rc.all()))
	}
}

// TestTheAdminAPIDeliversAPatientAsTheCLIDoes: POST
// /admin/patient-deliveries is the same operator action.
func TestTheAdminAPIDeliversAPatientAsTheCLIDoes(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	path := deliveryConfig(t, "", "")
	text := strings.Replace(readFile(t, path), "clients:", "admins:\n  - id: ops\n    apiKeys: [{key: "+opsKey+"}]\nclients:", 1)
	os.WriteFile(path, []byte(text), 0o600)
	s := startServerAt(t, path)
	uuid := completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "ada@example.com")
	os.WriteFile(path, []byte(strings.Replace(text, "    destinations:\n      []\n", "    destinations:\n"+webhookDest(rc.srv.URL, "        id: late\n"), 1)), 0o600)
	if out, err := runCLI("reload", "--config", path); err != nil {
		t.Fatalf("pads reload: %v\n%s", err, out)
	}
	r := s.do("POST", "/admin/authenticate", jsonHeader, `{"username":"ops","password":"`+opsKey+`"}`)
	admin := map[string]string{"Authorization": "Bearer " + r.body["token"].(string), "Content-Type": "application/json"}
	tests := []struct {
		body   string
		status int
		want   string
	}{
		{`{"client":"acme","patient":"` + uuid + `","destination":"late"}`, 200, `"enqueued":1`},
		{`{"client":"acme","patient":"` + uuid + `","destination":"late"}`, 200, `"already":1`},
		{`{"client":"acme","patient":"` + uuid + `","destination":"nowhere"}`, 404, "Unknown destination"},
		{`{"client":"nobody","patient":"` + uuid + `","destination":"late"}`, 404, "Unknown client"},
		{`{"client":"acme","patient":"` + uuid + `"}`, 400, "Body must be"},
	}
	for _, tt := range tests {
		if r := s.do("POST", "/admin/patient-deliveries", admin, tt.body); r.status != tt.status || !strings.Contains(r.raw, tt.want) {
			t.Errorf("%s: %d %s, want %d %s", tt.body, r.status, r.raw, tt.status, tt.want)
		}
	}
	rc.wait(t, 1, 20*time.Second)
}
