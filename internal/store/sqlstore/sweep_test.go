package sqlstore

import (
	"strings"
	"testing"
)

// TestInListTakesFewShapes: the IN lists of the sweep's batches come in a
// few sizes, padded with ids of the batch, so that their statements stay
// few in PostgreSQL's statement caches.
func TestInListTakesFewShapes(t *testing.T) {
	for _, tc := range []struct{ ids, want int }{{1, 16}, {16, 16}, {17, 32}, {200, 256}, {2000, 2048}} {
		ids := make([]any, tc.ids)
		for i := range ids {
			ids[i] = int64(i + 1)
		}
		list, args := inList(ids)
		if n := strings.Count(list, "?"); n != tc.want || len(args) != tc.want {
			t.Errorf("%d ids: %d placeholders and %d args, want %d", tc.ids, n, len(args), tc.want)
		}
		seen := map[any]bool{}
		for _, a := range args {
			seen[a] = true
		}
		if len(seen) != tc.ids {
			t.Errorf("%d ids: the list names %d distinct ids", tc.ids, len(seen))
		}
		for _, id := range ids {
			if !seen[id] {
				t.Errorf("%d ids: id %v is not in the list", tc.ids, id)
			}
		}
	}
}
