package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// The same email of two clients has unrelated blind indexes (nothing
// links their records in a stolen database); a record indexed the old way
// (plain lower-casing, not scoped) is still found by its email, and its
// next save, or pads records reseal, indexes it again in the current form.
func TestEmailIndexesAreScopedPerClientAndOldOnesReindexed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pads.db")
	keys := storetest.Keyring(t, "e1")
	s, err := sqlite.Open(ctx, path, store.Config{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saves := storetest.Saves(t, s)
	save := func(client, email string) storetest.Result {
		t.Helper()
		res, err := saves.Save(ctx, client, storetest.Request(client, "", email, record.Fields{}))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	acme, globex := save("acme", "kate@example.com"), save("globex", "kate@example.com")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	index := func(uuid string) []byte {
		t.Helper()
		var ix []byte
		if err := db.QueryRow("SELECT email_index FROM records WHERE patient_uuid = ?", uuid).Scan(&ix); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	if bytes.Equal(index(acme.PatientUUID), index(globex.PatientUUID)) {
		t.Fatal("the same email of two clients has the same blind index")
	}

	legacy := keys.Index(record.LegacyEmail("kate@example.com"))
	if _, err := db.Exec("UPDATE records SET email_index = ?", legacy); err != nil {
		t.Fatal(err)
	}
	if res := save("acme", "KATE@example.com"); res.Created || res.PatientUUID != acme.PatientUUID {
		t.Fatalf("a record indexed the old way is not found by its email: %+v", res)
	}
	if bytes.Equal(index(acme.PatientUUID), legacy) {
		t.Fatal("a save left the old index")
	}
	if _, err := s.Reseal(ctx); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(index(globex.PatientUUID), legacy) {
		t.Fatal("reseal left the old index")
	}
	if res := save("globex", "Kate@Example.com"); res.Created || res.PatientUUID != globex.PatientUUID {
		t.Fatalf("after reseal, the record is not found by its email: %+v", res)
	}
}
