package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
)

// smallFilesystem mounts a tmpfs of size bytes on a new directory and
// returns it, unmounted when the test ends. Mounting needs root: the test
// is skipped without it, except under CI (which runs as root), where it
// fails.
func smallFilesystem(t *testing.T, size int) string {
	t.Helper()
	skip := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must be able to mount a tmpfs: %s", why)
		}
		t.Skipf("needs a small filesystem of its own: %s", why)
	}
	if os.Geteuid() != 0 {
		skip("mounting one needs root")
	}
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "pads-test", dir).CombinedOutput()
	if err != nil {
		skip(fmt.Sprintf("mount -t tmpfs: %v %s", err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file in dir until the filesystem has no room left.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatal(err)
		}
	}
	// Then the last few bytes the chunks did not fit.
	for _, err := f.Write(chunk[:1]); err == nil; _, err = f.Write(chunk[:1]) {
	}
	return path
}

// With its data directory on a filesystem that fills up, pads answers
// saves 503 with the contract's JSON error and a Retry-After, /readyz
// fails, and once space is freed pads serves again by itself, with no
// restart. Every save answered 2xx, before, during and after, is there
// with its values after a restart, in a database that passes SQLite's
// integrity check.
func TestAFullDiskAnswers503AndPadsServesAgainOnceSpaceIsFreed(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a filesystem and starts a real process")
	}
	t.Parallel()
	mnt := smallFilesystem(t, 16<<20)
	dir := t.TempDir()
	path := writeConfig(t, dir, testConfig(filepath.Join(mnt, "data")))
	p := startProc(t, dir, "--config", path)
	tok := procToken(t, p.base, "acme", acmeKey)

	acked := map[string]string{} // patientUUID -> city, answered 201
	n := 0
	save := func() response {
		n++
		id, city := uuid.NewString(), fmt.Sprintf("city-%d", n)
		r := doHTTP(t, p.base, "POST", "/patient/savePatientData?dataType=non-sensitive",
			map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
			fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"%s@example.com","uuid":%q,"city":%q,"firstName":"Ada","lastName":"Lovelace"}`, id, id, city))
		if r.status == 201 {
			acked[id] = city
		}
		return r
	}
	for range 100 {
		if r := save(); r.status != 201 {
			t.Fatalf("save before the disk fills: %d %s", r.status, r.raw)
		}
	}

	filler := fill(t, mnt)
	var r response
	deadline := time.Now().Add(60 * time.Second)
	for r = save(); r.status == 201 && time.Now().Before(deadline); r = save() {
	}
	t.Logf("%d saves answered 201 before the full disk refused one", len(acked))
	if r.status != 503 || r.body["message"] != "Service unavailable" || r.body["requestId"] == nil || r.header.Get("Retry-After") == "" {
		t.Fatalf("a save on a full disk: %d %v %s, want 503 with the contract's error and Retry-After", r.status, r.header, r.raw)
	}
	if r := doHTTP(t, p.base, "GET", "/readyz", nil, ""); r.status != 503 {
		t.Fatalf("/readyz on a full disk: %d %s", r.status, r.raw)
	}
	if r := save(); r.status != 503 {
		t.Fatalf("a second save on a full disk: %d %s", r.status, r.raw)
	}

	// Space is freed: pads finds it by itself.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return doHTTP(t, p.base, "GET", "/readyz", nil, "").status == 200 })
	for range 100 {
		if r := save(); r.status != 201 {
			t.Fatalf("save once space is freed: %d %s", r.status, r.raw)
		}
	}

	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(); err != nil {
		t.Fatalf("pads exited with %v", err)
	}
	p2 := startProc(t, dir, "--config", path)
	tok = procToken(t, p2.base, "acme", acmeKey)
	for id := range acked {
		status, err := tryHTTP(p2.base, tok, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"%s@example.com","uuid":%q}`, id, id))
		if err != nil || status != 200 {
			t.Fatalf("acknowledged record %s after the restart: %d %v (want 200: it exists)", id, status, err)
		}
	}
	p2.cmd.Process.Signal(syscall.SIGTERM)
	p2.wait()
	checkRecords(t, path, acked)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(mnt, "data", "pads.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check: %q %v", check, err)
	}
}
