package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// held is Outbox.Held's query: owner's leases of pending deliveries. It
// runs before every batch of attempts; pgx prepares it once per
// connection.
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
