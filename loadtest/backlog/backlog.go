// Package backlog queues a destination's backlog straight into a pads
// database, as a destination down for a day leaves it: n pending
// deliveries, each of a record and an event of its own, tried and failed
// already, their next retry scheduled at a random time of the coming
// day. Rows go in with plain SQL (a million saves through the API would
// take too long), but each event's payload is sealed as pads seals it,
// under the keys pads runs with, so the deliveries that fall due while
// pads runs are claimed, sent and retried like any other. loadtest/fill
// (-pending) and loadtest/e2e (-backlog) use it.
package backlog

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// Backlog says what to queue.
type Backlog struct {
	// Database is sqlite://PATH or postgres://...
	Database string
	// Keys are the encryption keys pads runs with.
	Keys *seal.Keyring
	// Client and Destination name the destination (its id); the records
	// are of funnel Client + "-main".
	Client, Destination string
	// Pending is how many deliveries to queue.
	Pending int
	// Spread is the span over which their retries are due, from now.
	Spread time.Duration
	// Delivered queues the same rows delivered instead of pending: a day
	// of deliveries that went through, the database a backlog is compared
	// with (the same records, events and deliveries, none waiting).
	Delivered bool
}

// state is what the rows' delivery state, attempts and last error are.
func (b Backlog) state() (state string, attempts int, lastError any) {
	if b.Delivered {
		return "delivered", 1, nil
	}
	return "pending", 5, "http_5xx"
}

// uuid is the i-th backlog record's patientUUID: no load sends it.
func uuid(i int) string { return fmt.Sprintf("b1110000-0000-4000-8000-%012x", i) }

// row is one backlog delivery as the database gets it.
type row struct {
	uuid    string
	payload []byte // sealed
	message string
	created int64
	nextAt  int64
}

func (b Backlog) rows(from, to int, now time.Time) []row {
	codec := sqlstore.Codec{Keys: b.Keys}
	out := make([]row, 0, to-from)
	for i := from; i < to; i++ {
		id := uuid(i)
		key := record.Key{ClientID: b.Client, PatientUUID: id, AssessmentType: "faceScan"}
		body := fmt.Appendf(nil, `{"assessmentType":"faceScan","funnelID":%q,"uuid":%q,"formCompleted":true}`, b.Client+"-main", id)
		out = append(out, row{
			uuid:    id,
			payload: codec.SealPayload(key, record.NonSensitive, body),
			message: sqlstore.NewMessageID(),
			created: now.Add(-rand.N(24 * time.Hour)).UnixNano(),
			nextAt:  now.Add(rand.N(b.Spread)).UnixNano(),
		})
		if b.Delivered {
			out[len(out)-1].nextAt = out[len(out)-1].created
		}
	}
	return out
}

const chunk = 20_000

// Queue creates or migrates the database's schema, then queues the
// backlog.
func (b Backlog) Queue(ctx context.Context) error {
	if b.Spread <= 0 {
		b.Spread = 24 * time.Hour
	}
	cfg := store.Config{Keys: b.Keys}
	var st store.Store
	var err error
	path, isSQLite := strings.CutPrefix(b.Database, "sqlite://")
	if isSQLite {
		st, err = sqlite.Open(ctx, path, cfg)
	} else {
		st, err = postgres.Open(ctx, b.Database, cfg)
	}
	if err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	if isSQLite {
		return b.sqlite(ctx, path)
	}
	return b.postgres(ctx)
}

func (b Backlog) sqlite(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the temp table lives on this one connection
	if _, err := db.ExecContext(ctx, `CREATE TEMP TABLE backlog (patient_uuid TEXT, payload BLOB, message_id TEXT, created_at INTEGER, next_at INTEGER)`); err != nil {
		return err
	}
	now := time.Now()
	for from := 0; from < b.Pending; from += chunk {
		rows := b.rows(from, min(from+chunk, b.Pending), now)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if _, err := tx.ExecContext(ctx, "INSERT INTO backlog VALUES (?, ?, ?, ?, ?)", r.uuid, r.payload, r.message, r.created, r.nextAt); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	// Ids are given, not looked up (events have no index by record): the
	// k-th backlog row makes record r0+k, event e0+k and its delivery.
	var r0, e0 int64
	if err := db.QueryRowContext(ctx, "SELECT (SELECT coalesce(max(id), 0) FROM records), (SELECT coalesce(max(id), 0) FROM events)").Scan(&r0, &e0); err != nil {
		return err
	}
	steps := []string{
		`INSERT INTO records (id, client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at, form_completed_at)
			SELECT ?3 + rowid, ?1, patient_uuid, 'faceScan', ?1 || '-main', randomblob(32), x'00', created_at, created_at, created_at
			FROM backlog ORDER BY rowid`,
		`INSERT INTO events (id, record_id, funnel_id, data_type, model, created_at, payload)
			SELECT ?4 + rowid, ?3 + rowid, ?1 || '-main', 'non-sensitive', 'pads-score-2', created_at, payload FROM backlog ORDER BY rowid`,
		`INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
				next_at, created_at, updated_at, last_error)
			SELECT message_id, ?4 + rowid, ?3 + rowid, ?1, ?2, 'non-sensitive', ?5, 1, ?6, next_at, created_at, created_at, ?7
			FROM backlog ORDER BY rowid`,
		"DROP TABLE backlog",
		"PRAGMA wal_checkpoint(TRUNCATE)",
	}
	state, attempts, lastError := b.state()
	for _, q := range steps {
		if _, err := db.ExecContext(ctx, q, b.Client, b.Destination, r0, e0, state, attempts, lastError); err != nil {
			return fmt.Errorf("backlog: %w", err)
		}
	}
	return nil
}

func (b Backlog) postgres(ctx context.Context) error {
	// pgxpool reads the URL as pads does (pool_* parameters included).
	cfg, err := pgxpool.ParseConfig(b.Database)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE backlog (patient_uuid text, payload bytea, message_id text, created_at bigint, next_at bigint)`); err != nil {
		return err
	}
	now := time.Now()
	for from := 0; from < b.Pending; from += chunk {
		rows := b.rows(from, min(from+chunk, b.Pending), now)
		_, err := conn.CopyFrom(ctx, pgx.Identifier{"backlog"}, []string{"patient_uuid", "payload", "message_id", "created_at", "next_at"},
			pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
				r := rows[i]
				return []any{r.uuid, r.payload, r.message, r.created, r.nextAt}, nil
			}))
		if err != nil {
			return err
		}
	}
	steps := []string{
		`INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at, form_completed_at)
			SELECT $1, patient_uuid, 'faceScan', $1 || '-main', decode(md5(patient_uuid), 'hex'), '\x00'::bytea, created_at, created_at, created_at
			FROM backlog`,
		`INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload)
			SELECT r.id, r.funnel_id, 'non-sensitive', 'pads-score-2', b.created_at, b.payload
			FROM backlog b JOIN records r ON r.patient_uuid = b.patient_uuid AND r.client_id = $1 AND r.assessment_type = 'faceScan'`,
		`INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
				next_at, created_at, updated_at, last_error)
			SELECT b.message_id, e.id, r.id, $1, $2, 'non-sensitive', $3, 1, $4, b.next_at, b.created_at, b.created_at, $5
			FROM backlog b JOIN records r ON r.patient_uuid = b.patient_uuid AND r.client_id = $1 AND r.assessment_type = 'faceScan'
			JOIN events e ON e.record_id = r.id`,
	}
	state, attempts, lastError := b.state()
	for i, q := range steps {
		args := []any{b.Client}
		if i == 2 {
			args = append(args, b.Destination, state, attempts, lastError)
		}
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("backlog: %w", err)
		}
	}
	// VACUUM too: left to autovacuum, it would run during the load. And
	// a CHECKPOINT: the pages the queueing dirtied (a day's backlog
	// written in under a minute) would otherwise be written out during
	// the load by the checkpointer.
	for _, q := range []string{"VACUUM ANALYZE records, events, deliveries", "CHECKPOINT"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("backlog: %s: %w", q, err)
		}
	}
	return nil
}
