package postgres

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// commitsOf makes a batch's commits, one per patient: by email when byEmail,
// else by uuid.
func commitsOf(byEmail bool, patients ...string) []*commitOp {
	var out []*commitOp
	for _, p := range patients {
		key := record.Key{ClientID: "acme", PatientUUID: p, AssessmentType: "faceScan"}
		l := store.Lookup{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: p}
		if byEmail {
			l.PatientUUID, l.Email = "", p+"@example.com"
		}
		out = append(out, &commitOp{prepared: &sqlstore.Prepared{Commit: store.Commit{Lookup: l},
			Row: sqlstore.Row{Key: key}, Indexes: [][]byte{[]byte(p)}}})
	}
	return out
}

// firstArgs returns the first argument of every queued statement of sql.
func firstArgs(b *pgx.Batch, sql string, arg int) []string {
	var out []string
	for _, q := range b.QueuedQueries {
		if q.SQL == sql {
			out = append(out, fmt.Sprint(q.Arguments[arg]))
		}
	}
	return out
}

// Every batch takes its email locks, then its records' row locks, each in
// the order of their keys, whatever the order its saves came in: two
// processes' batches never wait for each other in a circle.
func TestABatchTakesItsLocksInKeyOrder(t *testing.T) {
	for _, order := range [][]string{{"c", "a", "b"}, {"b", "c", "a"}, {"a", "b", "c"}} {
		b := &pgx.Batch{}
		checkEmails(b, commitsOf(true, order...))
		locks := firstArgs(b, qLockEmail, 0)
		if len(locks) != 3 || !slices.IsSorted(locks) {
			t.Fatalf("saves %v take the email locks %q", order, locks)
		}
		b = &pgx.Batch{}
		writeRecords(b, commitsOf(false, order...))
		if got := firstArgs(b, qInsertRecord, 1); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Fatalf("saves %v write the records %v", order, got)
		}
	}
}

func TestUnavailableMarksWhatMaySucceedShortly(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "40P01"}, true}, // a deadlock that outlasted the retries
		{&pgconn.PgError{Code: "40001"}, true}, // a serialization failure, likewise
		{&pgconn.PgError{Code: "57P01"}, true}, // the server shuts down
		{&pgconn.PgError{Code: "53100"}, true}, // its disk is full
		{fmt.Errorf("commit: %w", pgx.ErrTxClosed), true},
		{&pgconn.PgError{Code: "23505"}, false}, // a unique violation is a bug, not an outage
		{errors.New("sealed with an unknown key"), false},
	}
	for _, tt := range tests {
		if got := errors.Is(unavailable(tt.err), store.ErrUnavailable); got != tt.want {
			t.Errorf("unavailable(%v) is ErrUnavailable: %v, want %v", tt.err, got, tt.want)
		}
	}
}
