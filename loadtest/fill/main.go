// Command fill puts n records of one client in a pads database, to measure
// pads as its tables grow: loadtest/run.sh runs it first when
// PADS_LOAD_FILL=n. It opens the database through pads' store (which
// creates or migrates the schema), then inserts the rows with plain SQL,
// in chunks: their sealed fields are filler, never read (the load sends
// other patientUUIDs), but their keys and email indexes are as many as n
// real records would make, and PostgreSQL's tables are analyzed after.
//
// With -pending n it queues instead the backlog of a destination down for
// a day: n pending deliveries of -client to its destination -destination,
// their retries due over the next 24 hours, their payloads sealed with
// -key (pads' encryption key, base64, id -key-id) so that pads can send
// those that fall due (see loadtest/backlog).
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"flag"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite"

	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/loadtest/backlog"
)

const chunk = 50_000

func main() {
	database := flag.String("database", "", "the database: sqlite://PATH or postgres://...")
	n := flag.Int("records", 1_000_000, "records to add")
	client := flag.String("client", "load", "their client")
	pending := flag.Int("pending", 0, "queue this many pending deliveries for -destination instead of adding records")
	destination := flag.String("destination", "", "with -pending: the destination's id")
	key := flag.String("key", "", "with -pending: pads' first encryption key, base64")
	keyID := flag.String("key-id", "e1", "with -pending: that key's id")
	flag.Parse()
	ctx := context.Background()
	start := time.Now()
	if *pending > 0 {
		if err := queueBacklog(ctx, *database, *client, *destination, *key, *keyID, *pending); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("fill: %d pending deliveries of client %s to destination %s in %v\n", *pending, *client, *destination,
			time.Since(start).Round(time.Second))
		return
	}
	if err := migrate(ctx, *database); err != nil {
		log.Fatal(err)
	}
	var err error
	if path, ok := strings.CutPrefix(*database, "sqlite://"); ok {
		err = fillSQLite(ctx, path, *client, *n)
	} else {
		err = fillPostgres(ctx, *database, *client, *n)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("fill: %d records of client %s in %v\n", *n, *client, time.Since(start).Round(time.Second))
}

// queueBacklog queues pending deliveries sealed under the key given.
func queueBacklog(ctx context.Context, database, client, destination, key, keyID string, n int) error {
	if destination == "" || key == "" {
		return fmt.Errorf("fill: -pending needs -destination and -key")
	}
	secret, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return fmt.Errorf("fill: -key: %w", err)
	}
	keys, err := seal.NewKeyring([]seal.Key{{ID: keyID, Secret: secret}})
	if err != nil {
		return err
	}
	return backlog.Backlog{Database: database, Keys: keys, Client: client, Destination: destination, Pending: n}.Queue(ctx)
}

// migrate opens and closes the database through the store, which creates
// or upgrades its schema. The key is throwaway: filler is not sealed.
func migrate(ctx context.Context, database string) error {
	secret := make([]byte, 32)
	rand.Read(secret)
	keys, err := seal.NewKeyring([]seal.Key{{ID: "fill", Secret: secret}})
	if err != nil {
		return err
	}
	cfg := store.Config{Keys: keys}
	var st store.Store
	if path, ok := strings.CutPrefix(database, "sqlite://"); ok {
		st, err = sqlite.Open(ctx, path, cfg)
	} else {
		st, err = postgres.Open(ctx, database, cfg)
	}
	if err != nil {
		return err
	}
	return st.Close()
}

// The filler records: patientUUIDs no load test sends (they start with
// "f111"), one distinct email index each.
const (
	uuidExpr  = "'f1110000-' || substr(md5(i::text), 1, 4) || '-4000-8000-' || lpad(to_hex(i), 12, '0')"
	emailExpr = "decode(md5('fill' || i), 'hex')"
)

func fillPostgres(ctx context.Context, url, client string, n int) error {
	// pgxpool reads the URL as pads does (pool_* parameters included).
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for from := 0; from < n; from += chunk {
		to := min(from+chunk, n) - 1
		_, err := conn.Exec(ctx, fmt.Sprintf(`INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at)
			SELECT $1, %s, 'faceScan', $1 || '-main', %s, '\\x00'::bytea, i, i FROM generate_series($2::bigint, $3::bigint) AS i
			ON CONFLICT DO NOTHING`, uuidExpr, emailExpr), client, from, to)
		if err != nil {
			return err
		}
	}
	// VACUUM too: left to autovacuum, it would run during the load.
	_, err = conn.Exec(ctx, "VACUUM ANALYZE records")
	return err
}

func fillSQLite(ctx context.Context, path, client string, n int) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// SQLite has no md5 or lpad: the filler's uuid and email index come
	// from printf and randomblob instead.
	for from := 0; from < n; from += chunk {
		to := min(from+chunk, n) - 1
		_, err := db.ExecContext(ctx, `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
			INSERT OR IGNORE INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at)
			SELECT ?, printf('f1110000-0000-4000-8000-%012x', i), 'faceScan', ? || '-main', randomblob(32), x'00', i, i FROM seq`,
			from, to, client, client)
		if err != nil {
			return err
		}
	}
	_, err = db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}
