package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// shortTempDir is a temporary directory whose path leaves room for the
// reload socket (a Unix socket's path holds 107 bytes; t.TempDir's names
// the test).
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func reloadOnce(path string) (string, error) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"reload", "--config", path}, func(string) string { return "" }, &out, &out)
	return out.String(), err
}

// TestReloadTakesAValidConfigAndNamesEveryProblemOfAnInvalidOne drives
// pads reload against a real pads serve on each store: a valid config is
// in force when pads reload returns; an invalid one is refused with each
// problem and its line, and the previous config stays.
func TestReloadTakesAValidConfigAndNamesEveryProblemOfAnInvalidOne(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	t.Parallel()
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			dir := shortTempDir(t)
			base := testConfig(filepath.Join(dir, "data"))
			if store == "postgres" {
				base = strings.Replace(base, "limits:", fmt.Sprintf("database: %s\nlimits:", pgtest.NewDatabase(t)), 1)
			}
			path := writeConfig(t, dir, base)
			p := startProc(t, dir, "--config", path)

			withInitech := base + "  - id: initech\n    apiKeys: [{key: initech-key-0123456789}]\n    funnels: [{id: initech-main}]\n"
			writeConfig(t, dir, withInitech)
			out, err := reloadOnce(path)
			if err != nil || !strings.Contains(out, "pads reloaded "+path) {
				t.Fatalf("pads reload of a valid config: %v\n%s", err, out)
			}
			// In force when pads reload returns: no waiting.
			if r := doHTTP(t, p.base, "POST", "/storage/authenticate", jsonHeader, `{"username":"initech","password":"initech-key-0123456789"}`); r.status != 200 {
				t.Fatalf("the reloaded client: %d", r.status)
			}

			writeConfig(t, dir, "tokenTTL: 1s\n"+withInitech+"    colour: blue\n")
			_, err = reloadOnce(path)
			if err == nil || errors.Is(err, errUsage) {
				t.Fatalf("pads reload of an invalid config: %v, want an error (exit 1)", err)
			}
			for _, want := range []string{"rejected; the previous config stays in force", `unknown key "colour" in clients[2]`, "line 1: tokenTTL: must be between 1m and 24h"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal lacks %q:\n%v", want, err)
				}
			}
			if r := doHTTP(t, p.base, "POST", "/storage/authenticate", jsonHeader, `{"username":"initech","password":"initech-key-0123456789"}`); r.status != 200 {
				t.Fatalf("after a refused reload the previous config stays: %d", r.status)
			}

			other := filepath.Join(dir, "other.yaml")
			os.WriteFile(other, []byte(withInitech), 0o600)
			if _, err := reloadOnce(other); err == nil || !strings.Contains(err.Error(), "this pads serves "+path) {
				t.Errorf("pads reload of another file on the same data dir: %v", err)
			}
		})
	}
}

func TestReloadSaysWhenNoPadsServesTheConfig(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	path := writeConfig(t, dir, testConfig(filepath.Join(dir, "data")))
	_, err := reloadOnce(path)
	if err == nil || !strings.Contains(err.Error(), "no pads serve is running with "+path) {
		t.Fatalf("err = %v", err)
	}
	if errors.Is(err, errUsage) {
		t.Fatal("a reload that reached no pads is exit 1, not a usage error")
	}
}
