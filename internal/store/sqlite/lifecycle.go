package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// held is Outbox.Held's query: owner's leases of pending deliveries, the
// ids given as one JSON array (one statement whatever their number).
const held = "SELECT id FROM deliveries WHERE id IN (SELECT value FROM json_each(?)) AND lease_owner = ? AND state = 'pending'"

// Held returns those of ids that owner still holds, pending.
func (s *Store) Held(ctx context.Context, owner string, ids []int64) ([]int64, error) {
	list, _ := json.Marshal(ids)
	rows, err := s.held.QueryContext(ctx, string(list), owner)
	if err != nil {
		return nil, fmt.Errorf("held: %w", err)
	}
	defer rows.Close()
	out := make([]int64, 0, len(ids))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("held: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("held: %w", err)
	}
	return out, nil
}

// querier runs the lifecycle's statements on one database/sql connection
// or transaction.
type querier struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q querier) Each(ctx context.Context, query string, fn func(sqlstore.Scanner) error, args ...any) error {
	rows, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
