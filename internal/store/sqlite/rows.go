package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/pads-dev/pads/internal/record"

	"github.com/pads-dev/pads/internal/store/sqlstore"
)

const selectRow = "SELECT " + sqlstore.RowColumns + " FROM records"

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

// tx is the writer's connection and its statements, prepared once for
// the writer's lifetime; its methods run inside the batch's transaction.
type tx struct {
	conn           *sql.Conn
	insert         *sql.Stmt
	update         *sql.Stmt // every column
	rewrite        *sql.Stmt // every column but email_index
	event          *sql.Stmt
	delivery       *sql.Stmt
	attempt        *sql.Stmt
	finishDelivery *sql.Stmt
	byEmail        map[int]*sql.Stmt // by number of indexes
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
			ON CONFLICT (client_id, patient_uuid, assessment_type) DO NOTHING`},
		{&t.update, `UPDATE records SET funnel_id = ?, email_index = ?, sealed = ?, version = version + 1, updated_at = ?,
			form_completed_at = ?, assessment_completed_at = ?
			WHERE client_id = ? AND patient_uuid = ? AND assessment_type = ? AND version = ? RETURNING id`},
		// SQLite rewrites the entries of every index on a column the SET
		// names, changed or not.
		{&t.rewrite, `UPDATE records SET funnel_id = ?, sealed = ?, version = version + 1, updated_at = ?,
			form_completed_at = ?, assessment_completed_at = ?
			WHERE client_id = ? AND patient_uuid = ? AND assessment_type = ? AND version = ? RETURNING id`},
		{&t.event, "INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload, fhir, snapshot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"},
		// An attempt of a delivery erased meanwhile is not recorded.
		{&t.attempt, `INSERT INTO attempts (delivery_id, series, number, owner, started_at, duration_ns,
			status_code, error_class, response) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
			WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ?1)`},
		{&t.finishDelivery, `UPDATE deliveries SET state = ?, attempts = ?, next_at = ?, due_at = NULL, lease_owner = NULL,
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

// byEmailVersion returns the key and version of the client's newest
// record of the assessment type with one of the email's indexes.
func (t *tx) byEmailVersion(ctx context.Context, clientID, assessmentType string, indexes [][]byte) (record.Key, int64, bool, error) {
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

// insertedID is the id of the row an INSERT ... DO NOTHING wrote, or 0
// when it wrote none.
func insertedID(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, err
	}
	return res.LastInsertId()
}

// writeCommit writes a save's outcome, one statement at a time, by the
// contract of store.Records.Commit: it checks first that the lookup still
// finds what the save read, and reports a conflict, having written
// nothing, when it does not. The insert or versioned update writes
// nothing (id 0) when the record was created or changed meanwhile.
func (t *tx) writeCommit(ctx context.Context, p *sqlstore.Prepared) (conflict bool, err error) {
	c := &p.Commit
	if p.ByEmail() {
		// A save by email changes the record the email finds: the newest,
		// which another save may have created or updated meanwhile.
		key, version, found, err := t.byEmailVersion(ctx, c.Lookup.ClientID, c.Lookup.AssessmentType, p.Indexes)
		if err != nil {
			return false, fmt.Errorf("find record by email: %w", err)
		}
		if !p.StillFinds(key, version, found) {
			return true, nil
		}
	}
	r, k := &p.Row, p.Row.Key
	form, assessment := sqlstore.ToNull(r.FormCompletedAt), sqlstore.ToNull(r.AssessmentCompletedAt)
	var id int64
	switch {
	case c.Previous == nil:
		// Exec, not RETURNING: the row's id and whether it was written
		// come with the result, without a result set to read (the
		// writer runs every save's insert in turn).
		id, err = insertedID(t.insert.ExecContext(ctx, k.ClientID, k.PatientUUID, k.AssessmentType, r.FunnelID,
			r.EmailIndex, r.Sealed, r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), form, assessment))
	case p.Reindex:
		id, err = returnedID(t.update.QueryRowContext(ctx, r.FunnelID, r.EmailIndex, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment,
			k.ClientID, k.PatientUUID, k.AssessmentType, c.Previous.Version))
	default:
		id, err = returnedID(t.rewrite.QueryRowContext(ctx, r.FunnelID, r.Sealed, r.UpdatedAt.UnixNano(), form, assessment,
			k.ClientID, k.PatientUUID, k.AssessmentType, c.Previous.Version))
	}
	if err != nil || id == 0 {
		return id == 0 && err == nil, wrap("write record", err)
	}
	for i := range p.Events {
		e := &p.Events[i]
		res, err := t.event.ExecContext(ctx, id, e.Event.FunnelID, string(e.Event.DataType), e.Event.Model, e.Event.CreatedAt.UnixNano(),
			e.Sealed, e.SealedFHIR, e.Snapshot)
		if err == nil {
			e.Event.ID, err = res.LastInsertId()
		}
		if err != nil {
			return false, fmt.Errorf("write event: %w", err)
		}
		for j := range e.Deliveries {
			d := &e.Deliveries[j]
			d.EventID = e.Event.ID
			res, err := t.delivery.ExecContext(ctx, d.MessageID, d.EventID, id, d.Key.ClientID, d.Destination, string(d.DataType),
				d.State, d.Series, d.NextAt.UnixNano(), d.CreatedAt.UnixNano(), d.UpdatedAt.UnixNano())
			if err == nil {
				d.ID, err = res.LastInsertId()
			}
			if err != nil {
				return false, fmt.Errorf("write delivery: %w", err)
			}
		}
	}
	return false, nil
}

// wrap is fmt.Errorf(what+": %w", err), and nil for nil.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// finish records an attempt and the delivery's new state.
func (t *tx) finish(ctx context.Context, f *finished) error {
	if _, err := t.attempt.ExecContext(ctx, f.DeliveryID, f.Series, f.Number, f.Owner, f.StartedAt.UnixNano(), int64(f.Duration),
		sqlstore.NullInt(f.StatusCode), sqlstore.NullString(f.ErrorClass), f.response); err != nil {
		return err
	}
	_, err := t.finishDelivery.ExecContext(ctx, f.State, f.Number, f.NextAt.UnixNano(), f.StartedAt.Add(f.Duration).UnixNano(),
		sqlstore.NullString(f.ErrorClass), f.DeliveryID, f.Owner, f.Series)
	return err
}

// exec runs a cold path's statements and returns the rows each changed.
func (t *tx) exec(ctx context.Context, stmts []sqlstore.Stmt) ([]int64, error) {
	changed := make([]int64, len(stmts))
	for i, s := range stmts {
		res, err := t.conn.ExecContext(ctx, s.SQL, s.Args...)
		if err != nil {
			return nil, err
		}
		if changed[i], err = res.RowsAffected(); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

func (t *tx) close() {
	for _, st := range []*sql.Stmt{t.insert, t.update, t.rewrite, t.event, t.delivery, t.attempt, t.finishDelivery} {
		if st != nil {
			st.Close()
		}
	}
	for _, st := range t.byEmail {
		st.Close()
	}
}
