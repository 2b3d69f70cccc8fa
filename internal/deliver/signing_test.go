package deliver_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// TestPreviousSecretsStopSigningWhenTheyExpire: a previous secret with an
// expiry signs messages sent before it and none after; one without an
// expiry and the current secret sign every message.
func TestPreviousSecretsStopSigningWhenTheyExpire(t *testing.T) {
	t.Parallel()
	const (
		current  = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		old      = "whsec_b2xkLXNlY3JldC0wMTIzNDU2Nzg5YWJjZGVm"
		expiring = "whsec_ZXhwaXJpbmctc2VjcmV0LTAxMjM0NTY3ODlh"
	)
	yaml := `destinations: {allowPlainHTTP: true}
clients:
  - id: acme
    apiKeys: [{key: "0123456789abcdef"}]
    funnels: [{id: acme-main}]
    destinations:
      - id: hook
        type: webhook
        url: http://hooks.example.com/pads
        auth:
          hmac:
            secret: ` + current + `
            previousSecrets:
              - ` + old + `
              - {secret: ` + expiring + `, expires: "2026-12-01T09:00:00Z"}
`
	cfg, err := config.Parse([]byte(yaml), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	d, _ := deliver.FromConfig(cfg).Resolve(store.DestinationRef{ClientID: "acme", ID: "hook"})
	key := func(s string) []byte { k, _ := config.WebhookSecret(s); return k }
	expiry := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		at   time.Time
		want [][]byte
	}{
		{expiry.Add(-time.Second), [][]byte{key(current), key(old), key(expiring)}},
		{expiry, [][]byte{key(current), key(old)}},
		{expiry.Add(24 * time.Hour), [][]byte{key(current), key(old)}},
	}
	for _, tt := range tests {
		if got := d.SigningKeys(tt.at); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("at %v: %d keys, want %d", tt.at, len(got), len(tt.want))
		}
	}
}
