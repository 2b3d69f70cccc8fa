package sqlite

import (
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/groupcommit"
)

// storeError turns a writer's error into the store's: ErrClosed once the
// writer stops, and ErrUnavailable for a disk that is full or failing (the
// transaction rolled back; the next one tries again, so pads serves again
// by itself once space is freed).
func storeError(err error) error {
	if errors.Is(err, groupcommit.ErrClosed) {
		return store.ErrClosed
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary result code
		case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
		}
	}
	return err
}
