package postgres

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pads-dev/pads/internal/store"
)

// unavailable marks err as store.ErrUnavailable when it says the database
// cannot be reached or cannot take writes now: a connection that failed or
// broke, a server shutting down or starting up, a full disk, contention
// that outlasted the batch's retries. pgxpool reconnects by itself once
// the server is back.
func unavailable(err error) error {
	if err == nil || errors.Is(err, store.ErrUnavailable) {
		return err
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.SafeToRetry(err), errors.Is(err, pgx.ErrTxClosed),
		transient(err), // a deadlock or serialization failure still there after the batch's retries
		errors.As(err, &pe) && isUnavailableCode(pe.Code),
		strings.Contains(err.Error(), "conn closed"), strings.Contains(err.Error(), "unexpected EOF"):
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

// isUnavailableCode reports the SQLSTATE classes of a server that cannot
// serve now: connection exceptions (08), insufficient resources such as a
// full disk (53), and an operator or crash shutdown or a start-up (57P).
func isUnavailableCode(code string) bool {
	return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "53") || strings.HasPrefix(code, "57P")
}
