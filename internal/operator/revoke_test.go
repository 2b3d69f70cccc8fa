package operator_test

import (
	"context"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/operator"
)

func TestRevokeTokensIsAuditedAndCoversTheWholeSecond(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	now := time.Date(2026, 11, 25, 12, 0, 0, 400_000_000, time.UTC)
	ops := operator.New(st, func() time.Time { return now }, nil)
	before, err := ops.RevokeTokens(ctx, "cli:ada", "acme")
	if err != nil {
		t.Fatal(err)
	}
	// A token issued at 12:00:00.7 says iat 12:00:00: it is revoked too.
	if want := time.Date(2026, 11, 25, 12, 0, 1, 0, time.UTC); !before.Equal(want) {
		t.Fatalf("revoked before %v, want %v", before, want)
	}
	got, err := st.TokenRevocations(ctx)
	if err != nil || !got["acme"].Equal(before) || len(got) != 1 {
		t.Fatalf("stored revocations %v, %v", got, err)
	}
	log, _ := st.AuditLog(ctx, 1)
	if len(log) != 1 || log[0].Actor != "cli:ada" || log[0].Action != operator.ActionRevokeTokens || log[0].Target != "client:acme" {
		t.Fatalf("audit log %+v", log)
	}
	if _, err := ops.RevokeTokens(ctx, "cli:ada", ""); err == nil {
		t.Fatal("a revocation of no client must be refused")
	}
}

func TestARevocationWhoseAuditFailsDoesNotHappen(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ops := operator.New(failingAudit{st}, nil, nil)
	if _, err := ops.RevokeTokens(context.Background(), "cli:ada", "acme"); err == nil {
		t.Fatal("a revocation without its audit entry succeeded")
	}
	if got, _ := st.TokenRevocations(context.Background()); len(got) != 0 {
		t.Fatalf("revoked without an audit entry: %v", got)
	}
}
