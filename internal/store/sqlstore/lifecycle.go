package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/pads-dev/pads/internal/store"
)

// patientCond selects p's records among records aliased r (r.), with its
// arguments: by uuid every assessment type, by email every blind index
// the email may be stored under.
func (s *Shared) patientCond(p store.Patient) (string, []any) {
	if p.PatientUUID != "" {
		return "r.patient_uuid = ? AND r.client_id = ?", []any{p.PatientUUID, p.ClientID}
	}
	indexes := s.codec.EmailIndexes(p.ClientID, p.Email)
	args := []any{p.ClientID}
	for _, ix := range indexes {
		args = append(args, ix)
	}
	return "r.client_id = ? AND r.email_index IN (" + placeholders(len(indexes)) + ")", args
}

// Erase removes every record of p with its events, deliveries and
// attempts in one transaction of the writer (store.Lifecycle.Erase).
//
// The first statement marks the patient's records (version -1, which no
// save holds: a save that read one before commits nothing and starts over,
// finding none) and locks them on PostgreSQL; every later statement takes
// the marked records only, so a record a save creates meanwhile is not
// half-erased. The second locks the records' deliveries against a claim
// and against an attempt being recorded for one (Finish inserts an attempt
// only while its delivery is there; on PostgreSQL it waits for this lock).
func (s *Shared) Erase(ctx context.Context, p store.Patient) (store.Erased, error) {
	cond, args := s.patientCond(p)
	mark := Stmt{"UPDATE records SET version = -1 WHERE id IN (SELECT r.id FROM records r WHERE " + cond + ")", args}
	n, err := s.db.Write(ctx, append([]Stmt{mark}, eraseMarked(cond, args)...)...)
	if err != nil {
		return store.Erased{}, fmt.Errorf("erase: %w", err)
	}
	return erased(n[1:]), nil
}

// eraseMarked are the statements that remove the records marked for
// erasure (version -1) among those cond selects (over records r), and
// everything hanging from them, in the order foreign keys allow. The first
// locks their deliveries; erased reads what the others removed.
func eraseMarked(cond string, args []any) []Stmt {
	marked := "r.version = -1 AND " + cond
	events := "SELECT e.id FROM events e JOIN records r ON r.id = e.record_id WHERE " + marked
	return []Stmt{
		{"UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE event_id IN (" + events + ")", args},
		{"DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE event_id IN (" + events + "))", args},
		// state || '': through the events' index, not the pending backlog's.
		{"DELETE FROM deliveries WHERE state || '' = 'pending' AND event_id IN (" + events + ")", args},
		{"DELETE FROM deliveries WHERE event_id IN (" + events + ")", args},
		{"DELETE FROM events WHERE id IN (" + events + ")", args},
		{"DELETE FROM records WHERE id IN (SELECT r.id FROM records r WHERE " + marked + ")", args},
	}
}

// erased counts what eraseMarked's statements changed, n.
func erased(n []int64) store.Erased {
	return store.Erased{Records: int(n[5]), Events: int(n[4]), Deliveries: int(n[2] + n[3]), Cancelled: int(n[2]),
		Attempts: int(n[1])}
}

// placeholders returns n comma-separated ? placeholders.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
