package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// A backup is a private, whole database file that opens with the same
// keys and holds every record saved before it began.
func TestBackupIsAPrivateCopyThatOpensWithTheSameKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	keys := storetest.Keyring(t, "e1")
	s, err := sqlite.Open(ctx, filepath.Join(dir, "pads.db"), store.Config{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saves := storetest.Saves(t, s)
	var uuids []string
	for i := range 50 {
		uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		if _, err := saves.Save(ctx, "acme", storetest.Request("acme", uuid, fmt.Sprintf("p%d@example.com", i),
			record.Fields{City: new(fmt.Sprintf("city-%d", i))})); err != nil {
			t.Fatal(err)
		}
		uuids = append(uuids, uuid)
	}
	copyPath := filepath.Join(dir, "backup", "pads-copy.db")
	os.Mkdir(filepath.Dir(copyPath), 0o700)
	if err := s.Backup(ctx, copyPath); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(copyPath); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v, want mode 0600", st, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "backup", "*")); len(left) != 1 {
		t.Fatalf("the backup leaves one file, found %v", left)
	}
	if err := s.Backup(ctx, copyPath); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("a backup over an existing file: %v, want refused", err)
	}

	restored, err := sqlite.Open(ctx, copyPath, store.Config{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	for i, uuid := range uuids {
		rec, err := restored.Get(ctx, record.Key{ClientID: "acme", PatientUUID: uuid, AssessmentType: "faceScan"})
		if err != nil || rec.Fields.City == nil || *rec.Fields.City != fmt.Sprintf("city-%d", i) {
			t.Fatalf("record %s in the backup: %v, %v", uuid, rec.Fields.City, err)
		}
	}
	other, err := sqlite.Open(ctx, copyPath, store.Config{Keys: storetest.Keyring(t, "e2")})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Get(ctx, record.Key{ClientID: "acme", PatientUUID: uuids[0], AssessmentType: "faceScan"}); err == nil {
		t.Fatal("the backup opened with another key")
	}
}
