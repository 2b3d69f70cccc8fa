package record

import "time"

// Save is one validated save of a client's record.
type Save struct {
	ClientID       string
	AssessmentType string
	// PatientUUID is "" when the call gave none: the record is then found
	// by Email (rules 3 and 4).
	PatientUUID string
	Email       string
	FunnelID    string
	Patch       Patch
	// FullSubscription: the client receives health results, so the first
	// assessmentCompleted raises a sensitive event.
	FullSubscription bool
}

// Change is what a save makes of a record.
type Change struct {
	Record  Record
	Created bool
	// Raised lists the events the save raises, in the order they are
	// raised: non-sensitive when formCompleted turned true for the first
	// time, then sensitive when assessmentCompleted did and the client
	// subscribes to full results.
	Raised []DataType
}

// Apply applies the save s to stored, the record its lookup found (nil
// when there is none), at now, by the contract's create-or-update rules:
//
//  1. patientUUID given, a record (client, patientUUID, assessmentType)
//     exists: update it.
//  2. patientUUID given, no such record: create it.
//  3. No patientUUID, a record of the client with that email and
//     assessmentType exists: update it (the lookup found the most
//     recently updated).
//  4. No patientUUID, none exists: create one named newUUID.
//
// It is pure: it reads stored and changes nothing it is given.
func Apply(stored *Record, s Save, now time.Time, newUUID string) Change {
	var rec Record
	if stored != nil {
		rec = *stored
	} else {
		id := s.PatientUUID
		if id == "" {
			id = newUUID
		}
		rec = Record{Key: Key{ClientID: s.ClientID, PatientUUID: id, AssessmentType: s.AssessmentType}, CreatedAt: now}
	}
	rec.Fields.Apply(&s.Patch)
	// The key fields are the record's identity, not the caller's to change.
	rec.Fields.PatientUUID = new(rec.PatientUUID)
	rec.Fields.AssessmentType = new(rec.AssessmentType)
	rec.FunnelID = s.FunnelID
	rec.UpdatedAt = now

	c := Change{Created: stored == nil}
	if isTrue(rec.Fields.FormCompleted) && rec.FormCompletedAt.IsZero() {
		rec.FormCompletedAt = now
		c.Raised = append(c.Raised, NonSensitive)
	}
	if isTrue(rec.Fields.AssessmentCompleted) && rec.AssessmentCompletedAt.IsZero() {
		rec.AssessmentCompletedAt = now
		if s.FullSubscription {
			c.Raised = append(c.Raised, Sensitive)
		}
	}
	c.Record = rec
	return c
}

func isTrue(b *bool) bool { return b != nil && *b }
