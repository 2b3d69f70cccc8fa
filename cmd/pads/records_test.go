package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/config"
)

func TestRecordsResealRetiresAnOldEncryptionKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e1, e2 := config.NewSecret(), config.NewSecret()
	withKeys := func(keys string) string {
		return strings.Replace(testConfig(filepath.Join(dir, "data")), "limits:", "secrets:\n  encryptionKeys:\n"+keys+"limits:", 1)
	}
	key := func(id, secret string) string { return fmt.Sprintf("    - {id: %s, key: %q}\n", id, secret) }
	path := filepath.Join(dir, "pads.yaml")
	write := func(text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	write(withKeys(key("e1", e1)))
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	for i := range 3 {
		if r := s.save(tok, "non-sensitive", fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"p%d@example.com","formCompleted":%t}`, i, i == 0)); r.status != 201 {
			t.Fatalf("save: %d %s", r.status, r.raw)
		}
	}
	s.stop()

	write(withKeys(key("e2", e2) + key("e1", e1)))
	var out bytes.Buffer
	if err := run(context.Background(), []string{"records", "reseal", "--config", path}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`resealed 3 records under key "e2"`, `records under key "e2": 3`,
		`resealed 1 payloads under key "e2"`, `payloads under key "e2": 1`} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Fatalf("reseal said:\n%s\nwant the line %s", out.String(), line)
		}
	}

	write(withKeys(key("e2", e2)))
	s = startServerAt(t, path)
	tok = s.token("acme", acmeKey, "storage")
	if r := s.save(tok, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"P1@example.com"}`); r.status != 200 {
		t.Fatalf("the record must be found by email with only the new key: %d %s", r.status, r.raw)
	}
}
