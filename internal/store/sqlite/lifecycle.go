package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// held is Outbox.Held's query: owner's lease of a pending delivery.
const held = "SELECT count(*) FROM deliveries WHERE id = ? AND lease_owner = ? AND state = 'pending'"

// Held reports whether owner still holds pending delivery id.
func (s *Store) Held(ctx context.Context, owner string, id int64) (bool, error) {
	var n int
	if err := s.readDB.QueryRowContext(ctx, held, id, owner).Scan(&n); err != nil {
		return false, fmt.Errorf("held: %w", err)
	}
	return n == 1, nil
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
