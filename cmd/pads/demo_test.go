package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemoDeliversBothPayloadsWithVerifiedSignatures(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	if err := run(context.Background(), []string{"demo", "--dir", filepath.Join(t.TempDir(), "not", "yet")}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{"dataType=non-sensitive -> 201", "dataType=sensitive -> 200",
		"webhook received: non-sensitive payload", "webhook received: sensitive payload", `"healthCreditScore": 845`, "done:"} {
		if !strings.Contains(text, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if n := strings.Count(text, "signature verified with the Standard Webhooks library: ok"); n != 2 {
		t.Fatalf("%d verified signatures, want 2:\n%s", n, text)
	}
}
