package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// The console's fixed queries, with PostgreSQL's placeholders.
var (
	windowCounts      = sqlstore.Rebind(sqlstore.WindowCounts)
	oldestPending     = sqlstore.Rebind(sqlstore.OldestPending)
	throughputBuckets = sqlstore.Rebind(sqlstore.ThroughputBuckets)
)

// DeliveryPage returns a page of deliveries, newest first.
func (s *Store) DeliveryPage(ctx context.Context, q store.DeliveryQuery) ([]store.Delivery, error) {
	query, args := sqlstore.DeliveryPage(q)
	rows, err := s.pool.Query(ctx, sqlstore.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("delivery page: %w", err)
	}
	defer rows.Close()
	return sqlstore.Collect(rows, sqlstore.ScanDeliveryRow)
}

// DestinationStats returns the health of each destination.
func (s *Store) DestinationStats(ctx context.Context, q store.StatsQuery) ([]store.DestinationStats, error) {
	stats := sqlstore.NewStats(q.Destinations)
	rows, err := s.pool.Query(ctx, windowCounts, q.Now.Add(-time.Hour).UnixNano(), q.Now.Add(-24*time.Hour).UnixNano())
	if err != nil {
		return nil, fmt.Errorf("destination stats: %w", err)
	}
	for rows.Next() {
		var ref store.DestinationRef
		var state string
		var day, hour int
		if err := rows.Scan(&ref.ClientID, &ref.ID, &state, &day, &hour); err != nil {
			rows.Close()
			return nil, fmt.Errorf("destination stats: %w", err)
		}
		st := stats.Get(ref)
		st.Day.Add(state, day)
		st.Hour.Add(state, hour)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("destination stats: %w", err)
	}
	for _, ref := range stats.Refs() {
		st := stats.Get(ref)
		var oldest sql.NullInt64
		if err := s.pool.QueryRow(ctx, oldestPending, ref.ClientID, ref.ID).Scan(&oldest); err != nil {
			return nil, fmt.Errorf("destination stats: %w", err)
		}
		st.OldestPending = sqlstore.FromNull(oldest)
		if q.Samples > 0 {
			query, args := sqlstore.RecentAttempts(ref, q.Now.Add(-24*time.Hour), q.Samples)
			rows, err := s.pool.Query(ctx, sqlstore.Rebind(query), args...)
			if err != nil {
				return nil, fmt.Errorf("destination stats: %w", err)
			}
			st.Recent, err = sqlstore.Collect(rows, sqlstore.ScanSample)
			rows.Close()
			if err != nil {
				return nil, fmt.Errorf("destination stats: %w", err)
			}
		}
	}
	return stats.All(), nil
}

// Throughput counts the deliveries created per step by state.
func (s *Store) Throughput(ctx context.Context, from, to time.Time, step time.Duration) ([]store.ThroughputBucket, error) {
	buckets := sqlstore.Buckets(from, to, step)
	rows, err := s.pool.Query(ctx, throughputBuckets, from.UnixNano(), int64(step), from.UnixNano(), to.UnixNano())
	if err != nil {
		return nil, fmt.Errorf("throughput: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var bucket int64
		var state string
		var n int
		if err := rows.Scan(&bucket, &state, &n); err != nil {
			return nil, fmt.Errorf("throughput: %w", err)
		}
		sqlstore.Fill(buckets, bucket, state, n)
	}
	return buckets, rows.Err()
}

// CountReplay counts what a replay by selection would change.
func (s *Store) CountReplay(ctx context.Context, r store.ReplayRequest) (int, error) {
	query, args := sqlstore.CountReplay(r)
	var n int
	if err := s.pool.QueryRow(ctx, sqlstore.Rebind(query), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count replay: %w", err)
	}
	return n, nil
}

// AuditPage returns a page of the audit log, newest first.
func (s *Store) AuditPage(ctx context.Context, q store.AuditQuery) ([]store.AuditEntry, error) {
	query, args := sqlstore.AuditPage(q)
	rows, err := s.pool.Query(ctx, sqlstore.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("audit page: %w", err)
	}
	defer rows.Close()
	return sqlstore.Collect(rows, sqlstore.ScanAudit)
}
