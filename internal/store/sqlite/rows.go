package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

const selectRow = "SELECT " + sqlstore.RowColumns + " FROM records"

func scanRow(sc sqlstore.Scanner) (sqlstore.Row, bool, error) {
	return sqlstore.ScanRow(sc, sql.ErrNoRows)
}

// byEmailQuery finds the newest record of a client and assessment type
// with one of n email indexes; columns are what it selects.
func byEmailQuery(columns string, n int) string {
	return "SELECT " + columns + " FROM records WHERE client_id = ? AND assessment_type = ? AND email_index IN (?" +
		strings.Repeat(", ?", n-1) + ") ORDER BY updated_at DESC, id DESC LIMIT 1"
}

func emailArgs(clientID, assessmentType string, indexes [][]byte) []any {
	args := make([]any, 0, 2+len(indexes))
	args = append(args, clientID, assessmentType)
	for _, ix := range indexes {
		args = append(args, ix)
	}
	return args
}

// tx is sqlstore.Tx over the writer's connection while a batch is open.
// Its statements are prepared once for the writer's lifetime.
type tx struct {
	conn     *sql.Conn
	insert   *sql.Stmt
	update   *sql.Stmt // every column
	rewrite  *sql.Stmt // every column but email_index
	event    *sql.Stmt
	delivery *sql.Stmt
	attempt  *sql.Stmt
	finish   *sql.Stmt
	byEmail  map[int]*sql.Stmt // by number of indexes
}

func prepare(ctx context.Context, conn *sql.Conn) (*tx, error) {
	t := &tx{conn: conn, byEmail: map[int]*sql.Stmt{}}
	var err error
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&t.insert, `INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, version,
			created_at, updated_at, form_completed_at, assessment_completed_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
			ON CONFLICT (client_id, patient_uuid, assessment_type) DO NOTHING RETURNING id`},
		{&t.update, `UPDATE records SET funnel_id = ?, email_index = ?, sealed = ?, version = version + 1, updated_at = ?,
			form_completed_at = ?, assessment_completed_at = ?
			WHERE client_id = ? AND patient_uuid = ? AND assessment_type = ? AND version = ? RETURNING id`},
		// SQLite rewrites the entries of every index on a column the SET
		// names, changed or not.
		{&t.rewrite, `UPDATE records SET funnel_id = ?, sealed = ?, version = version + 1, updated_at = ?,
			form_completed_at = ?, assessment_completed_at = ?
			WHERE client_id = ? AND patient_uuid = ? AND assessment_type = ? AND version = ? RETURNING id`},
		{&t.event, "INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload, fhir) VALUES (?, ?, ?, ?, ?, ?, ?)"},
		{&t.attempt, `INSERT INTO attempts (delivery_id, series, number, owner, started_at, duration_ns,
			status_code, error_class, response) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&t.finish, `UPDATE deliveries SET state = ?, attempts = ?, next_at = ?, lease_owner = NULL,
			lease_until = NULL, updated_at = ?, last_error = ? WHERE id = ? AND lease_owner = ? AND series = ?`},
		{&t.delivery, `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
			next_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`},
	} {
		if *p.stmt, err = conn.PrepareContext(ctx, p.sql); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *tx) ByEmail(ctx context.Context, clientID, assessmentType string, indexes [][]byte) (record.Key, int64, bool, error) {
	st, ok := t.byEmail[len(indexes)]
	if !ok {
		var err error
		if st, err = t.conn.PrepareContext(ctx, byEmailQuery("patient_uuid, version", len(indexes))); err != nil {
			return record.Key{}, 0, false, err
		}
		t.byEmail[len(indexes)] = st
	}
	k := record.Key{ClientID: clientID, AssessmentType: assessmentType}
	var version int64
	err := st.QueryRowContext(ctx, emailArgs(clientID, assessmentType, indexes)...).Scan(&k.PatientUUID, &version)
	if errors.Is(err, sql.ErrNoRows) {
		return record.Key{}, 0, false, nil
	}
	return k, version, err == nil, err
}

// returnedID reads the id a RETURNING clause gave, 0 for no row.
func returnedID(r *sql.Row) (int64, error) {
	var id int64
	if err := r.Scan(&id); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	return id, nil
}

func (t *tx) Insert(ctx context.Context, r *sqlstore.Row) (int64, error) {
	return returnedID(t.insert.QueryRowContext(ctx, r.Key.ClientID, r.Key.PatientUUID, r.Key.AssessmentType, r.FunnelID,
		r.EmailIndex, r.Sealed, r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(),
		sqlstore.ToNull(r.FormCompletedAt), sqlstore.ToNull(r.AssessmentCompletedAt)))
}

func (t *tx) Update(ctx context.Context, r *sqlstore.Row, version int64, reindex bool) (int64, error) {
	form, assessment := sqlstore.ToNull(r.FormCompletedAt), sqlstore.ToNull(r.AssessmentCompletedAt)
	k := r.Key
	if reindex {
		return returnedID(t.update.QueryRowContext(ctx, r.FunnelID, r.EmailIndex, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment,
			k.ClientID, k.PatientUUID, k.AssessmentType, version))
	}
	return returnedID(t.rewrite.QueryRowContext(ctx, r.FunnelID, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment,
		k.ClientID, k.PatientUUID, k.AssessmentType, version))
}

func (t *tx) InsertEvent(ctx context.Context, e *store.Event, recordID int64, payload, fhir []byte) error {
	res, err := t.event.ExecContext(ctx, recordID, e.FunnelID, string(e.DataType), e.Model, e.CreatedAt.UnixNano(), payload, fhir)
	if err != nil {
		return err
	}
	e.ID, err = res.LastInsertId()
	return err
}

func (t *tx) InsertDelivery(ctx context.Context, d *store.Delivery, recordID int64) error {
	res, err := t.delivery.ExecContext(ctx, d.MessageID, d.EventID, recordID, d.Key.ClientID, d.Destination, string(d.DataType),
		d.State, d.Series, d.NextAt.UnixNano(), d.CreatedAt.UnixNano(), d.UpdatedAt.UnixNano())
	if err != nil {
		return err
	}
	d.ID, err = res.LastInsertId()
	return err
}

// Records returns up to n rows with an id above after, in id order (the
// writer's transaction holds the database's one write lock).
func (t *tx) Records(ctx context.Context, after int64, n int) ([]sqlstore.Row, error) {
	return query(ctx, t.conn, scanPagedRow, selectRow+" WHERE id > ? ORDER BY id LIMIT ?", after, n)
}

func (t *tx) Events(ctx context.Context, after int64, n int) ([]sqlstore.SealedEvent, error) {
	return query(ctx, t.conn, sqlstore.ScanEvent, "SELECT "+sqlstore.EventColumns+
		" FROM events e JOIN records r ON r.id = e.record_id WHERE e.id > ? ORDER BY e.id LIMIT ?", after, n)
}

func (t *tx) SetEvent(ctx context.Context, e *sqlstore.SealedEvent) error {
	_, err := t.conn.ExecContext(ctx, "UPDATE events SET payload = ?, fhir = ? WHERE id = ?", e.Payload, e.FHIR, e.ID)
	return err
}

func (t *tx) Responses(ctx context.Context, after int64, n int) ([]sqlstore.SealedResponse, error) {
	return query(ctx, t.conn, sqlstore.ScanResponse, "SELECT "+sqlstore.ResponseColumns+
		" FROM attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE a.id > ? AND a.response IS NOT NULL ORDER BY a.id LIMIT ?", after, n)
}

func (t *tx) SetResponse(ctx context.Context, r *sqlstore.SealedResponse) error {
	_, err := t.conn.ExecContext(ctx, "UPDATE attempts SET response = ? WHERE id = ?", r.Response, r.ID)
	return err
}

// scanPagedRow reads a row of a page, where every row is found.
func scanPagedRow(sc sqlstore.Scanner) (sqlstore.Row, error) {
	r, _, err := scanRow(sc)
	return r, err
}

// query runs q and reads every row it returns with scan.
func query[T any](ctx context.Context, conn *sql.Conn, scan func(sqlstore.Scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (t *tx) close() {
	for _, st := range []*sql.Stmt{t.insert, t.update, t.rewrite, t.event, t.delivery, t.attempt, t.finish} {
		if st != nil {
			st.Close()
		}
	}
	for _, st := range t.byEmail {
		st.Close()
	}
}
