package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A patient's data is exported to a file only its owner reads, erased
// through the admin API and the CLI (idempotent, an unknown client an
// error), and a save after the erasure creates a new record; the audit
// log names the patient only by a keyed reference.
func TestExportAndErasureEndToEnd(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	path := deliveryConfig(t, webhookDest(rc.srv.URL, ""), "")
	text := strings.Replace(readFile(t, path), "clients:", fmt.Sprintf("admins:\n  - id: ops\n    apiKeys: [{key: %s}]\nclients:", opsKey), 1)
	path = writeConfig(t, t.TempDir(), text)
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	uuid := completeForm(t, s, tok, "acme-main", "ada@example.com")
	completeForm(t, s, tok, "acme-main", "bob@example.com")
	waitForDelivery(t, path, "delivered")

	// Export: 0600, the record, the result with its model, the delivery.
	out := filepath.Join(t.TempDir(), "ada.json")
	if said := cli(t, "records", "export", "--client", "acme", "--patient", uuid, "--out", out, "--config", path); !strings.Contains(said, "exported 1 records with 1 results") {
		t.Fatalf("export said %q", said)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v, %v", fi, err)
	}
	var doc struct {
		Format  string
		Records []struct {
			PatientUUID string
			Fields      map[string]any
			Results     []struct {
				Model      string
				Payload    map[string]any
				Deliveries []struct {
					State    string
					Attempts []struct{ StatusCode int }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, out)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Format != "pads-export-1" || len(doc.Records) != 1 || doc.Records[0].PatientUUID != uuid || doc.Records[0].Fields["firstName"] != "Ada" {
		t.Fatalf("export %s", readFile(t, out))
	}
	res := doc.Records[0].Results
	if len(res) != 1 || res[0].Model == "" || res[0].Payload["uuid"] != uuid || len(res[0].Deliveries) != 1 ||
		res[0].Deliveries[0].State != "delivered" || len(res[0].Deliveries[0].Attempts) != 1 {
		t.Fatalf("export results %s", readFile(t, out))
	}
	if err := run(context.Background(), []string{"records", "export", "--client", "acme", "--patient", uuid, "--out", out, "--config", path},
		func(string) string { return "" }, io.Discard, io.Discard); err == nil {
		t.Fatal("export wrote over an existing file")
	}

	// Erasure through the admin API.
	r := s.do("POST", "/admin/authenticate", jsonHeader, `{"username":"ops","password":"`+opsKey+`"}`)
	admin := map[string]string{"Authorization": "Bearer " + r.body["token"].(string), "Content-Type": "application/json"}
	r = s.do("POST", "/admin/erasures", admin, `{"client":"acme","patient":"`+uuid+`"}`)
	if r.status != 200 || r.body["erased"] != true || r.body["records"] != 1.0 || r.body["deliveries"] != 1.0 {
		t.Fatalf("erasure: %d %s", r.status, r.raw)
	}
	r = s.do("POST", "/admin/erasures", admin, `{"client":"acme","patient":"`+uuid+`"}`)
	if r.status != 200 || r.body["erased"] != false || r.body["records"] != 0.0 {
		t.Fatalf("erasure again: %d %s", r.status, r.raw)
	}
	for body, status := range map[string]int{`{"client":"nobody","patient":"` + uuid + `"}`: 404, `{"client":"acme"}`: 400,
		`{"client":"acme","patient":"42"}`: 400, `{"client":"acme","patient":"` + uuid + `","email":"a@example.com"}`: 400} {
		if r := s.do("POST", "/admin/erasures", admin, body); r.status != status {
			t.Errorf("erasure %s: %d %s, want %d", body, r.status, r.raw, status)
		}
	}
	if r := s.do("POST", "/admin/deliveries/1/replay", admin, ""); r.status != 200 || r.body["replayed"] != 0.0 {
		t.Fatalf("replay of an erased delivery: %d %s", r.status, r.raw)
	}
	if r := s.do("GET", "/admin/deliveries/1", admin, ""); r.status != 404 {
		t.Fatalf("the erased delivery is shown: %d %s", r.status, r.raw)
	}

	// Erasure through the CLI, by email.
	if said := cli(t, "records", "erase", "--client", "acme", "--email", "Bob@Example.com", "--config", path); !strings.HasPrefix(said, "erased: 1 records") {
		t.Fatalf("erase said %q", said)
	}
	if said := cli(t, "records", "erase", "--client", "acme", "--email", "bob@example.com", "--config", path); !strings.HasPrefix(said, "already gone") {
		t.Fatalf("erase again said %q", said)
	}
	err := run(context.Background(), []string{"records", "erase", "--client", "nobody", "--email", "bob@example.com", "--config", path},
		func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `no client "nobody"`) {
		t.Fatalf("erase for an unknown client: %v", err)
	}

	// A save after the erasure creates a new record.
	if r := s.save(tok, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com","patientUUID":"`+uuid+`"}`); r.status != 201 {
		t.Fatalf("save after erasure: %d %s", r.status, r.raw)
	}

	log := cli(t, "audit", "--config", path)
	for _, want := range []string{"records.export", "records.erase", "client:acme patient:", "client:acme email:"} {
		if !strings.Contains(log, want) {
			t.Errorf("audit log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, uuid) || strings.Contains(strings.ToLower(log), "example.com") {
		t.Fatalf("the audit log names the patient:\n%s", log)
	}
}
