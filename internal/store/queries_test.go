package store_test

import (
	"testing"

	"github.com/pads-dev/pads/internal/store"
)

func TestRebindNumbersPlaceholdersInOrder(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"SELECT 1":                                    "SELECT 1",
		"WHERE a = ? AND b = ?":                       "WHERE a = $1 AND b = $2",
		"(? = '' OR d.state = ?) LIMIT ?":             "($1 = '' OR d.state = $2) LIMIT $3",
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)": "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
	} {
		if got := store.Rebind(in); got != want {
			t.Errorf("Rebind(%q) = %q, want %q", in, got, want)
		}
	}
}
