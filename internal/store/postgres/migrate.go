package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pads-dev/pads/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the advisory lock key that serializes migrations of
// processes starting at once ("pads" in ASCII).
const migrationLock = 0x70616473

// migrate applies the migrations newer than the database's version. The
// first process to start takes the advisory lock and migrates; the others
// wait for it, then find nothing to do.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	ms, err := sqlstore.Migrations(migrations)
	if err != nil {
		return err
	}
	return sqlstore.Migrate(ctx, ms, func(ctx context.Context, fn func(sqlstore.MigrationTx) error) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return fn(migrationTx{tx}) })
	})
}

// migrationTx is sqlstore.MigrationTx on a pgx transaction.
type migrationTx struct{ tx pgx.Tx }

func (t migrationTx) Exec(ctx context.Context, q string, args ...any) error {
	if len(args) == 0 { // a migration's file: several statements, no placeholders
		_, err := t.tx.Exec(ctx, q)
		return err
	}
	_, err := t.tx.Exec(ctx, sqlstore.Rebind(q), args...)
	return err
}

func (t migrationTx) QueryRow(ctx context.Context, q string, args ...any) sqlstore.Scanner {
	return t.tx.QueryRow(ctx, sqlstore.Rebind(q), args...)
}
