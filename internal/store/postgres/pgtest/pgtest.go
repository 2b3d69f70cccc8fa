// Package pgtest gives tests a throwaway PostgreSQL database on the server
// named by PADS_TEST_POSTGRES_URL (.ci/run starts one).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// NewDatabase creates an empty database and returns its URL; it is dropped
// when the test ends. Without PADS_TEST_POSTGRES_URL the test is skipped,
// except under CI, where that is a failure.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("PADS_TEST_POSTGRES_URL")
	if admin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must set PADS_TEST_POSTGRES_URL")
		}
		t.Skip("PADS_TEST_POSTGRES_URL is not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "pads_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	t.Cleanup(func() {
		if conn, err := pgx.Connect(ctx, admin); err == nil {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			conn.Close(ctx)
		}
	})
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	return u.String()
}

// Connect opens a connection of the test's own to dbURL, for its set-up
// and checks; it closes when the test ends.
func Connect(tb testing.TB, dbURL string) *pgx.Conn {
	tb.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
