package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migration is one numbered schema change of a driver: a file
// migrations/NNNN_what.sql, applied once, in version order.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations reads the migrations of fsys's folder migrations, in version
// order.
func Migrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, name := range names {
		base := path.Base(name)
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migrate: bad migration name %s", base)
		}
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: version, Name: base, SQL: string(text)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// MigrationTx is a driver's transaction for one migration; its statements
// take ? placeholders.
type MigrationTx interface {
	Exec(ctx context.Context, q string, args ...any) error
	QueryRow(ctx context.Context, q string, args ...any) Scanner
}

// Migrate applies each of ms that schema_migrations does not record, each
// in its own transaction of inTx (which commits when fn returns nil and
// rolls back otherwise): the check, the migration and its record commit
// together, so a migration is applied exactly once however many processes
// start at once (the driver's transactions keep them apart).
func Migrate(ctx context.Context, ms []Migration, inTx func(ctx context.Context, fn func(MigrationTx) error) error) error {
	for _, m := range ms {
		err := inTx(ctx, func(tx MigrationTx) error {
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&n); err != nil || n > 0 {
				return err
			}
			if err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			return tx.Exec(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", m.Version, time.Now().UnixNano())
		})
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.Name, err)
		}
	}
	return nil
}
