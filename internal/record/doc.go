// Package record is the patient assessment record: its identity, its typed
// fields, and the rules of a save (rules.go), as pure functions.
//
// A record is identified by (client, patientUUID, assessmentType). Its
// fields are the catalogue of internal/intake, one Go field each (a test
// keeps the two equal); a save is a JSON merge patch over them: a value
// overwrites, null clears, an absent field keeps what was stored.
package record
