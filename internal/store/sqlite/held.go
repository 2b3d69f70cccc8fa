package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
)

// held is Outbox.Held's query: owner's leases of pending deliveries, the
// ids given as one JSON array (one statement whatever their number). It
// runs before every batch of attempts: prepared once (Store.held).
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
