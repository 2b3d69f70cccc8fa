package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// PauseDestination records a pause, durably, unless the destination is
// paused already.
func (s *Shared) PauseDestination(ctx context.Context, p store.Pause) (bool, error) {
	n, err := s.db.Write(ctx, Stmt{`INSERT INTO destination_pauses (client_id, destination_id, paused_at, reason, paused_by)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (client_id, destination_id) DO NOTHING`,
		[]any{p.ClientID, p.ID, p.At.UnixNano(), p.Reason, p.By}})
	if err != nil {
		return false, fmt.Errorf("pause destination: %w", err)
	}
	return n[0] == 1, nil
}

// ResumeDestination deletes a destination's pause, durably.
func (s *Shared) ResumeDestination(ctx context.Context, ref store.DestinationRef) (bool, error) {
	n, err := s.db.Write(ctx, Stmt{`DELETE FROM destination_pauses WHERE client_id = ? AND destination_id = ?`,
		[]any{ref.ClientID, ref.ID}})
	if err != nil {
		return false, fmt.Errorf("resume destination: %w", err)
	}
	return n[0] == 1, nil
}

// PausedDestinations returns every pause, by client and destination.
func (s *Shared) PausedDestinations(ctx context.Context) ([]store.Pause, error) {
	rows, err := s.db.Query(ctx, `SELECT client_id, destination_id, paused_at, reason, paused_by FROM destination_pauses
		ORDER BY client_id, destination_id`)
	if err != nil {
		return nil, fmt.Errorf("paused destinations: %w", err)
	}
	defer rows.Close()
	var out []store.Pause
	for rows.Next() {
		var p store.Pause
		var at int64
		if err := rows.Scan(&p.ClientID, &p.ID, &at, &p.Reason, &p.By); err != nil {
			return nil, fmt.Errorf("paused destinations: %w", err)
		}
		p.At = time.Unix(0, at).UTC()
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("paused destinations: %w", err)
	}
	return out, nil
}
