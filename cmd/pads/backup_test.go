package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
)

// pads backup copies the database while pads serves and saves go on; a
// pads pointed at the copy, with the same secrets, serves every record
// saved before the backup began, each with its acknowledged values.
func TestBackupWhileServingRestoresEveryRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	dir := t.TempDir()
	path := writeConfig(t, dir, testConfig(filepath.Join(dir, "data")))
	p := startProc(t, dir, "--config", path)
	tok := procToken(t, p.base, "acme", acmeKey)

	saveCity := func(id, city string) (int, error) {
		return tryHTTP(p.base, tok, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"%s@example.com","uuid":%q,"city":%q}`, id, id, city))
	}
	before := map[string]string{} // patientUUID -> city, acknowledged before the backup
	for i := range 200 {
		id := uuid.NewString()
		if status, err := saveCity(id, fmt.Sprintf("before-%d", i)); err != nil || status != 201 {
			t.Fatalf("save: %d %v", status, err)
		}
		before[id] = fmt.Sprintf("before-%d", i)
	}
	// Saves go on while the backup runs.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var during int
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if status, err := saveCity(uuid.NewString(), fmt.Sprintf("during-%d", i)); err != nil || status != 201 {
				t.Errorf("save during the backup: %d %v", status, err)
				return
			}
			during++
		}
	})
	file := filepath.Join(t.TempDir(), "pads-backup.db")
	out := cli(t, "backup", file, "--config", path)
	close(stop)
	wg.Wait()
	t.Logf("%d saves during the backup; %s", during, strings.TrimSpace(out))
	if !strings.Contains(out, "backed up") {
		t.Fatalf("backup output: %s", out)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v, want mode 0600", st, err)
	}
	if err := run(context.Background(), []string{"backup", file, "--config", path}, func(string) string { return "" }, io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "exists") {
		t.Fatalf("a backup over an existing file: %v, want refused", err)
	}
	if log := cli(t, "audit", "--config", path); !strings.Contains(log, "records.backup") || !strings.Contains(log, "file:"+file) {
		t.Fatalf("the backup is not in the audit log:\n%s", log)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait()

	// Restore: a pads whose config names the copy, with the same secrets.
	restored := t.TempDir()
	data := filepath.Join(restored, "data")
	os.Mkdir(data, 0o700)
	os.WriteFile(filepath.Join(data, config.SecretsFile), []byte(readFile(t, filepath.Join(dir, "data", config.SecretsFile))), 0o600)
	rpath := writeConfig(t, restored, strings.Replace(testConfig(data), "dataDir: "+data,
		"dataDir: "+data+"\ndatabase: sqlite://"+file, 1))
	p2 := startProc(t, restored, "--config", rpath)
	tok = procToken(t, p2.base, "acme", acmeKey)
	for id := range before {
		status, err := tryHTTP(p2.base, tok, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"%s@example.com","uuid":%q}`, id, id))
		if err != nil || status != 200 {
			t.Fatalf("record %s after the restore: %d %v (want 200: it exists)", id, status, err)
		}
	}
	p2.cmd.Process.Signal(syscall.SIGTERM)
	p2.wait()
	checkRecords(t, rpath, before)
}

// checkRecords opens the store of the config at path, with its secrets,
// and checks that each record (patientUUID -> city) holds its city.
func checkRecords(t *testing.T, path string, want map[string]string) {
	t.Helper()
	cfg, err := config.Load(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	keys, _, err := config.LoadKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kr, _ := seal.NewKeyring(sealKeys(keys.Encryption))
	st, err := sqlite.Open(context.Background(), strings.TrimPrefix(cfg.Database, "sqlite://"), store.Config{Keys: kr})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, city := range want {
		rec, err := st.Get(context.Background(), record.Key{ClientID: "acme", PatientUUID: id, AssessmentType: "faceScan"})
		if err != nil || rec.Fields.City == nil || *rec.Fields.City != city {
			t.Fatalf("record %s: %v %v, want city %s", id, rec.Fields.City, err, city)
		}
	}
}

// pads backup refuses a PostgreSQL database, before connecting, and
// says what to use instead.
func TestBackupRefusesPostgreSQLAndNamesPgDump(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeConfig(t, dir, strings.Replace(testConfig(filepath.Join(dir, "data")), "listen:",
		"database: postgres://pads@db.invalid/pads\nlisten:", 1))
	err := run(context.Background(), []string{"backup", filepath.Join(dir, "copy.db"), "--config", path},
		func(string) string { return "" }, io.Discard, io.Discard)
	if !errors.Is(err, operator.ErrNoBackup) || !strings.Contains(err.Error(), "pg_dump") {
		t.Fatalf("backup of PostgreSQL: %v, want a refusal naming pg_dump", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "copy.db")); err == nil {
		t.Fatal("a refused backup wrote a file")
	}
}
