package sqlstore_test

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/pads-dev/pads/internal/store/sqlstore"
)

func TestMigrationsComeInVersionOrderAndABadNameIsRefused(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		want    []int
		wantErr bool
	}{
		{"numeric, not lexical, order", []string{"migrations/10_c.sql", "migrations/0002_b.sql", "migrations/9_a.sql"}, []int{2, 9, 10}, false},
		{"other files are not migrations", []string{"migrations/0001_a.sql", "migrations/README.md", "0003_b.sql"}, []int{1}, false},
		{"a name without its number", []string{"migrations/0001_a.sql", "migrations/init.sql"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tt.files {
				fsys[f] = &fstest.MapFile{Data: []byte("SELECT 1")}
			}
			ms, err := sqlstore.Migrations(fsys)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Migrations: %v, want an error: %v", err, tt.wantErr)
			}
			var got []int
			for _, m := range ms {
				got = append(got, m.Version)
			}
			if !tt.wantErr && !slices.Equal(got, tt.want) {
				t.Fatalf("versions %v, want %v", got, tt.want)
			}
		})
	}
}
