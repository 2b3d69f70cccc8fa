package postgres

import (
	"context"
	"encoding/hex"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

func scanRow(sc pgx.Row) (sqlstore.Row, bool, error) { return sqlstore.ScanRow(sc, pgx.ErrNoRows) }

// tx is sqlstore.Tx over one pgx transaction. pgx prepares and caches each
// statement per connection.
type tx struct{ pgx.Tx }

// ByEmail first takes a transaction-scoped advisory lock on (client,
// assessment type, email index), then finds the newest record with the
// email. Both go in one round trip (a pgx pipeline); the server runs them
// in order, and in READ COMMITTED the query's snapshot is taken after the
// lock is held, so it sees what the lock's previous holder committed. Two
// processes creating a record for one email therefore run one after the
// other, and the second finds the first's record (and gets a conflict).
func (t tx) ByEmail(ctx context.Context, clientID, assessmentType string, indexes [][]byte) (record.Key, int64, bool, error) {
	b := &pgx.Batch{}
	b.Queue(qLockEmail, "email\x1f"+clientID+"\x1f"+assessmentType+"\x1f"+hex.EncodeToString(indexes[0]))
	b.Queue(qVersionByEmail, clientID, assessmentType, indexes)
	br := t.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return record.Key{}, 0, false, err
	}
	k := record.Key{ClientID: clientID, AssessmentType: assessmentType}
	var version int64
	err := br.QueryRow().Scan(&k.PatientUUID, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		return record.Key{}, 0, false, nil
	}
	return k, version, err == nil, err
}

// returnedID reads the id a RETURNING clause gave, 0 for no row.
func returnedID(r pgx.Row) (int64, error) {
	var id int64
	if err := r.Scan(&id); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, err
	}
	return id, nil
}

// Insert writes nothing when the key exists (ON CONFLICT DO NOTHING): a
// unique violation would abort the whole batch's transaction.
func (t tx) Insert(ctx context.Context, r *sqlstore.Row) (int64, error) {
	return returnedID(t.QueryRow(ctx, qInsertRecord, r.Key.ClientID, r.Key.PatientUUID, r.Key.AssessmentType, r.FunnelID, r.EmailIndex, r.Sealed,
		r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), sqlstore.ToNull(r.FormCompletedAt), sqlstore.ToNull(r.AssessmentCompletedAt)))
}

func (t tx) Update(ctx context.Context, r *sqlstore.Row, version int64, reindex bool) (int64, error) {
	form, assessment := sqlstore.ToNull(r.FormCompletedAt), sqlstore.ToNull(r.AssessmentCompletedAt)
	k := r.Key
	if reindex {
		return returnedID(t.QueryRow(ctx, qUpdateRecord, r.FunnelID, r.EmailIndex, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment, k.ClientID, k.PatientUUID, k.AssessmentType, version))
	}
	return returnedID(t.QueryRow(ctx, qRewriteRecord, r.FunnelID, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment, k.ClientID, k.PatientUUID, k.AssessmentType, version))
}

func (t tx) InsertEvent(ctx context.Context, e *store.Event, recordID int64, payload, fhir []byte) error {
	return t.QueryRow(ctx, qInsertEvent, recordID, e.FunnelID, string(e.DataType), e.Model, e.CreatedAt.UnixNano(), payload, fhir).Scan(&e.ID)
}

func (t tx) InsertDelivery(ctx context.Context, d *store.Delivery, recordID int64) error {
	return t.QueryRow(ctx, qInsertDelivery, d.MessageID, d.EventID, recordID, d.Key.ClientID, d.Destination, string(d.DataType), d.State, d.Series,
		d.NextAt.UnixNano(), d.CreatedAt.UnixNano(), d.UpdatedAt.UnixNano()).Scan(&d.ID)
}

// Records locks the rows it returns (FOR UPDATE): a save of one of them
// waits for the reseal's page to commit.
func (t tx) Records(ctx context.Context, after int64, n int) ([]sqlstore.Row, error) {
	return query(ctx, t, func(r pgx.CollectableRow) (sqlstore.Row, error) {
		row, _, err := scanRow(r)
		return row, err
	}, selectRow+" WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE", after, n)
}

func (t tx) Events(ctx context.Context, after int64, n int) ([]sqlstore.SealedEvent, error) {
	return query(ctx, t, func(r pgx.CollectableRow) (sqlstore.SealedEvent, error) { return sqlstore.ScanEvent(r) },
		"SELECT "+sqlstore.EventColumns+" FROM events e JOIN records r ON r.id = e.record_id WHERE e.id > $1 ORDER BY e.id LIMIT $2", after, n)
}

func (t tx) SetEvent(ctx context.Context, e *sqlstore.SealedEvent) error {
	_, err := t.Exec(ctx, "UPDATE events SET payload = $1, fhir = $2 WHERE id = $3", e.Payload, e.FHIR, e.ID)
	return err
}

func (t tx) Responses(ctx context.Context, after int64, n int) ([]sqlstore.SealedResponse, error) {
	return query(ctx, t, func(r pgx.CollectableRow) (sqlstore.SealedResponse, error) { return sqlstore.ScanResponse(r) },
		"SELECT "+sqlstore.ResponseColumns+" FROM attempts a JOIN deliveries d ON d.id = a.delivery_id"+
			" WHERE a.id > $1 AND a.response IS NOT NULL ORDER BY a.id LIMIT $2", after, n)
}

func (t tx) SetResponse(ctx context.Context, r *sqlstore.SealedResponse) error {
	_, err := t.Exec(ctx, "UPDATE attempts SET response = $1 WHERE id = $2", r.Response, r.ID)
	return err
}

func query[T any](ctx context.Context, t tx, scan pgx.RowToFunc[T], q string, args ...any) ([]T, error) {
	rows, err := t.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scan)
}
