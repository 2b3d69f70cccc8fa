package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// Audit appends an entry, durably.
func (s *Store) Audit(ctx context.Context, e store.AuditEntry) error {
	return s.b.Do(ctx, func(ctx context.Context, t pgx.Tx) error {
		_, err := t.Exec(ctx, insertAudit,
			e.At.UnixNano(), e.Actor, e.Action, e.Target)
		return err
	})
}

// AuditLog returns the newest entries first.
func (s *Store) AuditLog(ctx context.Context, limit int) ([]store.AuditEntry, error) {
	rows, err := s.pool.Query(ctx, listAudit, limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer rows.Close()
	return sqlstore.Collect(rows, sqlstore.ScanAudit)
}
