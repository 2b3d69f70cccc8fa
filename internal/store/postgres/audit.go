package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
)

// Audit appends an entry, durably.
func (s *Store) Audit(ctx context.Context, e store.AuditEntry) error {
	return s.b.Do(ctx, func(ctx context.Context, t pgx.Tx) error {
		_, err := t.Exec(ctx, "INSERT INTO audit (at, actor, action, target) VALUES ($1, $2, $3, $4)",
			e.At.UnixNano(), e.Actor, e.Action, e.Target)
		return err
	})
}

// AuditLog returns the newest entries first.
func (s *Store) AuditLog(ctx context.Context, limit int) ([]store.AuditEntry, error) {
	rows, err := s.pool.Query(ctx, "SELECT id, at, actor, action, target FROM audit ORDER BY id DESC LIMIT $1", limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer rows.Close()
	var out []store.AuditEntry
	for rows.Next() {
		var e store.AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		e.At = time.Unix(0, at).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}
