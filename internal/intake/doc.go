// Package intake turns one savePatientData request body into a canonical
// record patch, or into the first failure of the contract's check order:
// invalid JSON, fields of the other data type, missing required fields,
// invalid values.
//
// Inbound keys are matched loosely (case, '_', '-', '.' and spaces do not
// matter, and a few aliases are known); values are coerced from the common
// ways clients send them and checked against plausibility ranges. The field
// catalogue in fields.go is the one place that lists every field, its type,
// its data type and its range; docs/api.md mirrors it.
package intake
