package sqlite

import (
	"context"
	"fmt"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// Audit appends an entry, durably.
func (s *Store) Audit(ctx context.Context, e store.AuditEntry) error {
	return s.w.do(ctx, func(ctx context.Context, t *tx) error {
		_, err := t.conn.ExecContext(ctx, sqlstore.InsertAudit,
			e.At.UnixNano(), e.Actor, e.Action, e.Target)
		return err
	})
}

// AuditLog returns the newest entries first.
func (s *Store) AuditLog(ctx context.Context, limit int) ([]store.AuditEntry, error) {
	rows, err := s.readDB.QueryContext(ctx, sqlstore.ListAudit, limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer rows.Close()
	return sqlstore.Collect(rows, sqlstore.ScanAudit)
}
