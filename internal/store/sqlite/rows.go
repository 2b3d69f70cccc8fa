package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

const selectRow = "SELECT " + store.RowColumns + " FROM records"

func scanRow(sc store.Scanner) (store.Row, bool, error) { return store.ScanRow(sc, sql.ErrNoRows) }

// tx is store.Tx over the writer's connection while a batch is open. Its
// statements are prepared once for the writer's lifetime.
type tx struct {
	conn     *sql.Conn
	byKey    *sql.Stmt
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
		{&t.byKey, selectRow + " WHERE client_id = ? AND patient_uuid = ? AND assessment_type = ?"},
		{&t.insert, `INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed,
			created_at, updated_at, form_completed_at, assessment_completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&t.update, `UPDATE records SET funnel_id = ?, email_index = ?, sealed = ?, updated_at = ?,
			form_completed_at = ?, assessment_completed_at = ? WHERE id = ?`},
		// SQLite rewrites the entries of every index on a column the SET
		// names, changed or not.
		{&t.rewrite, `UPDATE records SET funnel_id = ?, sealed = ?, updated_at = ?,
			form_completed_at = ?, assessment_completed_at = ? WHERE id = ?`},
		{&t.event, "INSERT INTO events (record_id, funnel_id, data_type, created_at, payload) VALUES (?, ?, ?, ?, ?)"},
		{&t.attempt, `INSERT INTO attempts (delivery_id, series, number, owner, started_at, duration_ns,
			status_code, error_class, response) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&t.finish, `UPDATE deliveries SET state = ?, attempts = ?, next_at = ?, lease_owner = NULL,
			lease_until = NULL, updated_at = ?, last_error = ? WHERE id = ? AND lease_owner = ? AND series = ?`},
		{&t.delivery, `INSERT INTO deliveries (message_id, event_id, client_id, destination, data_type, state, series, attempts,
			next_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`},
	} {
		if *p.stmt, err = conn.PrepareContext(ctx, p.sql); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *tx) ByKey(ctx context.Context, k record.Key) (store.Row, bool, error) {
	return scanRow(t.byKey.QueryRowContext(ctx, k.ClientID, k.PatientUUID, k.AssessmentType))
}

func (t *tx) ByEmail(ctx context.Context, clientID, assessmentType string, indexes [][]byte) (store.Row, bool, error) {
	st, ok := t.byEmail[len(indexes)]
	if !ok {
		q := selectRow + " WHERE client_id = ? AND assessment_type = ? AND email_index IN (?" +
			strings.Repeat(", ?", len(indexes)-1) + ") ORDER BY updated_at DESC, id DESC LIMIT 1"
		var err error
		if st, err = t.conn.PrepareContext(ctx, q); err != nil {
			return store.Row{}, false, err
		}
		t.byEmail[len(indexes)] = st
	}
	args := make([]any, 0, 2+len(indexes))
	args = append(args, clientID, assessmentType)
	for _, ix := range indexes {
		args = append(args, ix)
	}
	return scanRow(st.QueryRowContext(ctx, args...))
}

func (t *tx) Insert(ctx context.Context, r *store.Row) error {
	res, err := t.insert.ExecContext(ctx, r.Key.ClientID, r.Key.PatientUUID, r.Key.AssessmentType, r.FunnelID, r.EmailIndex, r.Sealed,
		r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), store.ToNull(r.FormCompletedAt), store.ToNull(r.AssessmentCompletedAt))
	if err != nil {
		return err
	}
	r.ID, err = res.LastInsertId()
	return err
}

func (t *tx) Update(ctx context.Context, r *store.Row, emailChanged bool) error {
	form, assessment := store.ToNull(r.FormCompletedAt), store.ToNull(r.AssessmentCompletedAt)
	var err error
	if emailChanged {
		_, err = t.update.ExecContext(ctx, r.FunnelID, r.EmailIndex, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment, r.ID)
	} else {
		_, err = t.rewrite.ExecContext(ctx, r.FunnelID, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment, r.ID)
	}
	return err
}

func (t *tx) InsertEvent(ctx context.Context, e *store.Event, recordID int64, payload []byte) error {
	res, err := t.event.ExecContext(ctx, recordID, e.FunnelID, string(e.DataType), e.CreatedAt.UnixNano(), payload)
	if err != nil {
		return err
	}
	e.ID, err = res.LastInsertId()
	return err
}

func (t *tx) InsertDelivery(ctx context.Context, d *store.Delivery) error {
	res, err := t.delivery.ExecContext(ctx, d.MessageID, d.EventID, d.Key.ClientID, d.Destination, string(d.DataType),
		d.State, d.Series, d.NextAt.UnixNano(), d.CreatedAt.UnixNano(), d.UpdatedAt.UnixNano())
	if err != nil {
		return err
	}
	d.ID, err = res.LastInsertId()
	return err
}

// page returns up to n rows with an id above after, in id order.
func (t *tx) page(ctx context.Context, after int64, n int) ([]store.Row, error) {
	rows, err := t.conn.QueryContext(ctx, selectRow+" WHERE id > ? ORDER BY id LIMIT ?", after, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Row
	for rows.Next() {
		r, _, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (t *tx) close() {
	for _, st := range []*sql.Stmt{t.byKey, t.insert, t.update, t.rewrite, t.event, t.delivery, t.attempt, t.finish} {
		if st != nil {
			st.Close()
		}
	}
	for _, st := range t.byEmail {
		st.Close()
	}
}
