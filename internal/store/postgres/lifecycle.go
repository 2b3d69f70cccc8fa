package postgres

import (
	"context"
	"fmt"

	"github.com/pads-dev/pads/internal/store"
)

// sweepLock is the key of the session advisory lock held by the one
// process that sweeps (see Store.SweepLock), apart from the owners' locks.
const sweepLock = 0x70616473_73776570 // "padsswep"

// SweepLock takes the sweep's advisory lock on a connection of its own,
// held until unlock; ok is false when another process holds it.
func (s *Store) SweepLock(ctx context.Context) (func(), bool, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("sweep lock: %w", unavailable(err))
	}
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", int64(sweepLock)).Scan(&ok); err != nil {
		conn.Release()
		return nil, false, fmt.Errorf("sweep lock: %w", unavailable(err))
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	return func() {
		conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", int64(sweepLock))
		conn.Release()
	}, true, nil
}

// SweepPace: the sweep's batches run in transactions of their own beside
// the writer loops (sqlstore.DB.WriteBeside), so saves do not wait for
// them, and the sweep may take two thirds of the time (a rest of half a
// batch's time): with the default rest it fell behind 2,000 saves a
// second (1,216-1,634 records removed a second).
func (s *Store) SweepPace() store.SweepPace { return store.SweepPace{Rest: 0.5} }
