package store

import (
	"context"
	"time"
)

// Auditor keeps the audit log: who did what, when, to which target, never
// with a record's values. Entries are durable once Audit returns.
type Auditor interface {
	Audit(ctx context.Context, e AuditEntry) error
	// AuditLog returns up to limit entries, newest first.
	AuditLog(ctx context.Context, limit int) ([]AuditEntry, error)
}

// AuditEntry is one audited action.
type AuditEntry struct {
	ID     int64
	At     time.Time
	Actor  string // "admin:ops", "cli:alice"
	Action string // "deliveries.replay"
	Target string // "delivery:42", "failed since 2026-11-21T12:00:00Z"
}
