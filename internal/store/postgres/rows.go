package postgres

import (
	"context"
	"encoding/hex"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

const selectRow = "SELECT " + store.RowColumns + " FROM records"

func scanRow(sc pgx.Row) (store.Row, bool, error) { return store.ScanRow(sc, pgx.ErrNoRows) }

// tx is store.Tx over one pgx transaction. pgx prepares and caches each
// statement per connection.
type tx struct{ pgx.Tx }

// lockedRow takes the transaction-scoped advisory lock named by lockKey,
// then reads one row with query. Both go in one round trip (a pgx
// pipeline); the server runs them in order, and in READ COMMITTED the
// query's snapshot is taken after the lock is held, so it sees what the
// lock's previous holder committed.
func (t tx) lockedRow(ctx context.Context, lockKey []string, query string, args ...any) (store.Row, bool, error) {
	key := ""
	for _, p := range lockKey {
		key += p + "\x1f" // never in an id, a UUID or validated text
	}
	b := &pgx.Batch{}
	b.Queue("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", key)
	b.Queue(query, args...)
	br := t.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return store.Row{}, false, err
	}
	return scanRow(br.QueryRow())
}

func (t tx) ByKey(ctx context.Context, k record.Key) (store.Row, bool, error) {
	return t.lockedRow(ctx, []string{"key", k.ClientID, k.PatientUUID, k.AssessmentType},
		selectRow+" WHERE client_id = $1 AND patient_uuid = $2 AND assessment_type = $3 FOR UPDATE",
		k.ClientID, k.PatientUUID, k.AssessmentType)
}

func (t tx) ByEmail(ctx context.Context, clientID, assessmentType string, indexes [][]byte) (store.Row, bool, error) {
	return t.lockedRow(ctx, []string{"email", clientID, assessmentType, hex.EncodeToString(indexes[0])},
		selectRow+` WHERE client_id = $1 AND assessment_type = $2 AND email_index = ANY($3)
		ORDER BY updated_at DESC, id DESC LIMIT 1 FOR UPDATE`, clientID, assessmentType, indexes)
}

func (t tx) Insert(ctx context.Context, r *store.Row) error {
	return t.QueryRow(ctx, `INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed,
		created_at, updated_at, form_completed_at, assessment_completed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		r.Key.ClientID, r.Key.PatientUUID, r.Key.AssessmentType, r.FunnelID, r.EmailIndex, r.Sealed,
		r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), store.ToNull(r.FormCompletedAt), store.ToNull(r.AssessmentCompletedAt)).Scan(&r.ID)
}

func (t tx) Update(ctx context.Context, r *store.Row, emailChanged bool) error {
	form, assessment := store.ToNull(r.FormCompletedAt), store.ToNull(r.AssessmentCompletedAt)
	var err error
	if emailChanged {
		_, err = t.Exec(ctx, `UPDATE records SET funnel_id = $1, email_index = $2, sealed = $3, updated_at = $4,
			form_completed_at = $5, assessment_completed_at = $6 WHERE id = $7`,
			r.FunnelID, r.EmailIndex, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment, r.ID)
	} else {
		// No indexed column changes: PostgreSQL can update the row in place
		// (a heap-only tuple) without touching an index.
		_, err = t.Exec(ctx, `UPDATE records SET funnel_id = $1, sealed = $2, updated_at = $3,
			form_completed_at = $4, assessment_completed_at = $5 WHERE id = $6`,
			r.FunnelID, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment, r.ID)
	}
	return err
}

func (t tx) InsertEvent(ctx context.Context, e *store.Event, recordID int64, payload []byte) error {
	return t.QueryRow(ctx, "INSERT INTO events (record_id, funnel_id, data_type, created_at, payload) VALUES ($1, $2, $3, $4, $5) RETURNING id",
		recordID, e.FunnelID, string(e.DataType), e.CreatedAt.UnixNano(), payload).Scan(&e.ID)
}

func (t tx) InsertDelivery(ctx context.Context, d *store.Delivery) error {
	return t.QueryRow(ctx, `INSERT INTO deliveries (message_id, event_id, client_id, destination, data_type, state, series, attempts,
		next_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10) RETURNING id`,
		d.MessageID, d.EventID, d.Key.ClientID, d.Destination, string(d.DataType), d.State, d.Series,
		d.NextAt.UnixNano(), d.CreatedAt.UnixNano(), d.UpdatedAt.UnixNano()).Scan(&d.ID)
}
