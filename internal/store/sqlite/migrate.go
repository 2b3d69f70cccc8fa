package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/pads-dev/pads/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrate applies the migrations newer than the database's version, each in
// its own IMMEDIATE transaction, so processes starting at once on one file
// apply each migration exactly once.
func migrate(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	ms, err := sqlstore.Migrations(migrations)
	if err != nil {
		return err
	}
	return sqlstore.Migrate(ctx, ms, func(ctx context.Context, fn func(sqlstore.MigrationTx) error) (err error) {
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return err
		}
		defer func() {
			if err != nil {
				conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			}
		}()
		if err := fn(migrationTx{conn}); err != nil {
			return err
		}
		_, err = conn.ExecContext(ctx, "COMMIT")
		return err
	})
}

// migrationTx is sqlstore.MigrationTx on the writer's connection.
type migrationTx struct{ conn *sql.Conn }

func (t migrationTx) Exec(ctx context.Context, q string, args ...any) error {
	_, err := t.conn.ExecContext(ctx, q, args...)
	return err
}

func (t migrationTx) QueryRow(ctx context.Context, q string, args ...any) sqlstore.Scanner {
	return t.conn.QueryRowContext(ctx, q, args...)
}
