package sqlite

import (
	"context"
	"fmt"
	"time"
)

// RevokeTokens records a client's revocation, durably; it never moves back.
func (s *Store) RevokeTokens(ctx context.Context, clientID string, before time.Time) error {
	return s.w.do(ctx, func(ctx context.Context, t *tx) error {
		_, err := t.conn.ExecContext(ctx, `INSERT INTO token_revocations (client_id, revoked_before) VALUES (?, ?)
			ON CONFLICT (client_id) DO UPDATE SET revoked_before = max(revoked_before, excluded.revoked_before)`,
			clientID, before.UnixNano())
		return err
	})
}

// TokenRevocations returns every client's revocation time.
func (s *Store) TokenRevocations(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.readDB.QueryContext(ctx, `SELECT client_id, revoked_before FROM token_revocations`)
	if err != nil {
		return nil, fmt.Errorf("token revocations: %w", storeError(err))
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var ns int64
		if err := rows.Scan(&id, &ns); err != nil {
			return nil, fmt.Errorf("token revocations: %w", err)
		}
		out[id] = time.Unix(0, ns).UTC()
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("token revocations: %w", storeError(err))
	}
	return out, nil
}
