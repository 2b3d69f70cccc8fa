package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/deliver/sns/snstest"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// onStores runs test once per store: SQLite, and PostgreSQL when the test
// server is there. The config at path gets the store's database.
func onStores(t *testing.T, test func(t *testing.T, useStore func(path string))) {
	t.Run("sqlite", func(t *testing.T) { test(t, func(string) {}) })
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.NewDatabase(t)
		test(t, func(path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append([]byte("database: "+url+"\n"), b...), 0o600); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// runCLI runs pads with args and returns what it printed and its error.
func runCLI(args ...string) (string, error) {
	var out strings.Builder
	err := run(context.Background(), args, func(string) string { return "" }, &out, io.Discard)
	return out.String(), err
}

// TestDestinationsTestSendIsVerifiedByTheReceiverKits sends a test event
// with `pads destinations test` to each receiver of docs/receivers: each
// verifies its signature as a delivery's and sees a test event; the
// command prints the answer and succeeds. A destination that answers 500
// makes the command fail. Both are audited, and neither is a delivery.
func TestDestinationsTestSendIsVerifiedByTheReceiverKits(t *testing.T) {
	for name, command := range receiverKits {
		t.Run(name, func(t *testing.T) {
			k := startKit(t, command(t))
			broken := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(500)
				w.Write([]byte("down for maintenance"))
			})
			onStores(t, func(t *testing.T, useStore func(string)) {
				path := deliveryConfig(t, "      - id: crm\n        type: webhook\n        url: "+k.url+"\n        auth:\n          hmac: {secret: "+whsec1+"}\n"+
					"      - id: broken\n        type: webhook\n        url: "+broken.srv.URL+"\n", "")
				useStore(path)
				before := len(k.with("processed"))
				out, err := runCLI("destinations", "test", "acme/crm", "--config", path)
				if err != nil || !strings.Contains(out, "to acme/crm: taken, HTTP 204") {
					t.Fatalf("test send: %v\n%s", err, out)
				}
				waitFor(t, func() bool { return len(k.with("processed")) == before+1 })
				if l := k.with("processed")[before]; l["event"] != "test" || !strings.Contains(out, l["processed"]) {
					t.Fatalf("the receiver processed %v; the command said %s", l, out)
				}
				out, err = runCLI("destinations", "test", "acme/broken", "--config", path)
				if err == nil || !strings.Contains(out, "NOT taken: http_5xx, HTTP 500") || !strings.Contains(out, "down for maintenance") {
					t.Fatalf("test send to a broken destination: %v\n%s", err, out)
				}
				if _, err := runCLI("destinations", "test", "acme/nowhere", "--config", path); err == nil || !strings.Contains(err.Error(), "no destination acme/nowhere") {
					t.Fatalf("an unknown destination: %v", err)
				}
				audit := cli(t, "audit", "--config", path)
				for _, want := range []string{"destinations.test_result  destination:acme/crm ok status=204", "destinations.test_result  destination:acme/broken failed http_5xx status=500"} {
					if !strings.Contains(audit, want) {
						t.Errorf("audit log lacks %q:\n%s", want, audit)
					}
				}
				if list := cli(t, "deliveries", "list", "--config", path); strings.Count(list, "\n") != 1 {
					t.Errorf("test sends are not deliveries:\n%s", list)
				}
			})
		})
	}
}

// TestDestinationsTestSendPublishesATestToSNS publishes a test event to an
// SNS topic: its dataType attribute is test, and it names no patient.
func TestDestinationsTestSendPublishesATestToSNS(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	fake := snstest.NewServer()
	defer fake.Close()
	path := deliveryConfig(t, "      - id: topic\n        type: sns\n        topicArn: arn:aws:sns:us-east-1:123456789012:acme-results.fifo\n        region: us-east-1\n        endpoint: "+fake.URL+"\n", "")
	out, err := runCLI("destinations", "test", "acme/topic", "--config", path)
	if err != nil || !strings.Contains(out, "taken, HTTP 200") {
		t.Fatalf("test send: %v\n%s", err, out)
	}
	p := fake.Published()[0]
	var body map[string]any
	json.Unmarshal([]byte(p.Message), &body)
	if p.Attributes["dataType"] != "test" || p.Attributes["uuid"] != "" || body["type"] != "test" || body["destination"] != "topic" ||
		p.MessageGroupID != p.Attributes["eventId"] || !p.Authorized {
		t.Fatalf("publish %+v", p)
	}
}
