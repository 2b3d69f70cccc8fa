// Package record is the patient assessment record: its identity, its fields
// and how a save merges into it.
//
// A record is identified by (client, patientUUID, assessmentType). Its values
// are kept by canonical field name (the camelCase names of the product
// contract), so a save is a JSON merge patch over that map: a value
// overwrites, nil clears, an absent field keeps what was stored.
package record
