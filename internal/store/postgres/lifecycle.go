package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// held is Outbox.Held's query: owner's leases of pending deliveries.
const held = "SELECT id FROM deliveries WHERE id = ANY($1) AND lease_owner = $2 AND state = 'pending'"

// Held returns those of ids that owner still holds, pending.
func (s *Store) Held(ctx context.Context, owner string, ids []int64) ([]int64, error) {
	rows, err := s.pool.Query(ctx, held, ids, owner)
	if err != nil {
		return nil, fmt.Errorf("held: %w", unavailable(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("held: %w", unavailable(err))
	}
	return out, nil
}

// querier runs the lifecycle's statements, written with ? placeholders,
// on a pool or a transaction.
type querier struct {
	q interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	}
}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, sqlstore.Rebind(query), args...)
	return tag.RowsAffected(), err
}

func (q querier) Each(ctx context.Context, query string, fn func(sqlstore.Scanner) error, args ...any) error {
	rows, err := q.q.Query(ctx, sqlstore.Rebind(query), args...)
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
