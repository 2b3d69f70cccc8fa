package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/deliver/sns/snstest"
)

// TestSaveEndsAsAnSNSPublish drives the HTTP API and checks the publish on
// a fake SNS endpoint, through the real AWS SDK: the first publish is
// throttled and retried by the outbox.
func TestSaveEndsAsAnSNSPublish(t *testing.T) {
	// Credentials come from the AWS default chain: the environment here.
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	fake := snstest.NewServer()
	defer fake.Close()
	fake.Faults = func(n int) snstest.Fault {
		if n == 0 {
			return snstest.Throttled
		}
		return snstest.Fault{}
	}
	dest := "      - type: sns\n        topicArn: arn:aws:sns:us-east-1:123456789012:acme-results.fifo\n        region: us-east-1\n        endpoint: " + fake.URL +
		"\n        retry: {attempts: 3, initialDelay: 50ms}\n"
	path := deliveryConfig(t, dest, "")
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	uuid := completeForm(t, s, tok, "acme-main", "ada@example.com")
	waitFor(t, func() bool { return len(fake.Published()) == 1 })
	p := fake.Published()[0]
	var body map[string]any
	if err := json.Unmarshal([]byte(p.Message), &body); err != nil || body["uuid"] != uuid || body["firstName"] != "Ada" {
		t.Fatalf("message %s", p.Message)
	}
	if p.Attributes["dataType"] != "non-sensitive" || p.Attributes["uuid"] != uuid || p.Attributes["funnelID"] != "acme-main" ||
		!strings.HasPrefix(p.Attributes["eventId"], "msg_") || p.MessageGroupID != uuid || p.MessageDeduplicationID != p.Attributes["eventId"] || !p.Authorized {
		t.Fatalf("publish %+v", p)
	}
	out := waitForDelivery(t, path, "delivered")
	if !strings.Contains(out, "sns_throttled") || fake.Calls() != 2 {
		t.Fatalf("want a throttled attempt then a publish (%d calls):\n%s", fake.Calls(), out)
	}
	s.stop() // waits for every attempt under way
	if len(fake.Published()) != 1 {
		t.Fatal("published twice")
	}
}
