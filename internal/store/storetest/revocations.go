package storetest

import (
	"context"
	"testing"
	"time"
)

var revocationTests = []test{
	{"TokenRevocationsAreDurableAndNeverMoveBack", testTokenRevocations},
}

// testTokenRevocations: a revocation is read back by a store opened
// afterwards (another process, a restart), per client, and a later call
// with an earlier time does not move it back.
func testTokenRevocations(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	got, err := h.TokenRevocations(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("TokenRevocations of a new database = %v, %v; want none", got, err)
	}
	at := time.Date(2026, 11, 22, 12, 0, 1, 0, time.UTC)
	if err := h.RevokeTokens(ctx, "acme", at); err != nil {
		t.Fatal(err)
	}
	if err := h.RevokeTokens(ctx, "globex", at.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := h.RevokeTokens(ctx, "acme", at.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	h.Close()

	again := open(t, o)
	got, err = again.TokenRevocations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got["acme"].Equal(at) || !got["globex"].Equal(at.Add(-time.Hour)) {
		t.Fatalf("after reopening: %v; want acme at %v (not moved back), globex an hour before", got, at)
	}
	later := at.Add(time.Hour)
	if err := again.RevokeTokens(ctx, "acme", later); err != nil {
		t.Fatal(err)
	}
	if got, _ := again.TokenRevocations(ctx); !got["acme"].Equal(later) {
		t.Fatalf("a later revocation moves forward: %v", got["acme"])
	}
}
