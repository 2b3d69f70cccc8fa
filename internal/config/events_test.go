package config_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
)

const whsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func TestDestinationEventsDefaultToTheSubscriptionAndNeverAskMore(t *testing.T) {
	t.Parallel()
	full := strings.Replace(minimal, "    funnels:", "    subscription: full\n    funnels:", 1)
	y := full + `    destinations:
      - {id: both, type: webhook, url: "https://example.com/a"}
      - {id: crm, type: webhook, url: "https://example.com/b", events: [non-sensitive]}
      - {id: ehr, type: webhook, url: "https://example.com/c", events: [sensitive, results-updated], maxPerSecond: 2.5}
`
	cfg, err := config.Parse([]byte(y), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		want []string
	}{
		{"both", []string{"non-sensitive", "sensitive"}},
		{"crm", []string{"non-sensitive"}},
		{"ehr", []string{"sensitive", "results-updated"}},
	}
	for _, tt := range tests {
		if got := cfg.Destination("acme", tt.id).Events; !slices.Equal(got, tt.want) {
			t.Errorf("%s: events %v, want %v", tt.id, got, tt.want)
		}
	}
	if d := cfg.Destination("acme", "ehr"); !d.Gets(config.EventResultsUpdated) || d.Gets(config.EventNonSensitive) || d.MaxPerSecond != 2.5 {
		t.Errorf("ehr = %+v", d)
	}
	basic, err := config.Parse([]byte(minimal+"    destinations:\n      - {type: webhook, url: \"https://example.com/a\"}\n"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := basic.Destination("acme", "production-1").Events; !slices.Equal(got, []string{"non-sensitive"}) {
		t.Errorf("a non-sensitive subscription's default = %v", got)
	}
}

func TestDestinationEventsAndRateAreCheckedWithTheirLine(t *testing.T) {
	t.Parallel()
	dest := func(extra string) string {
		return minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n" + extra
	}
	tests := []struct {
		name, yaml, want string
	}{
		{"more than the subscription", dest("        events: [non-sensitive, sensitive]\n"),
			`line 11: clients[0].destinations[0].events[1]: "sensitive" needs subscription: full (client "acme" subscribes to non-sensitive)`},
		{"results-updated without full", dest("        events: [results-updated]\n"),
			`line 11: clients[0].destinations[0].events[0]: "results-updated" needs subscription: full (client "acme" subscribes to non-sensitive)`},
		{"unknown event", dest("        events: [everything]\n"), `line 11: clients[0].destinations[0].events[0]: "everything" is not an event`},
		{"twice", dest("        events: [non-sensitive, non-sensitive]\n"), `events[1]: "non-sensitive" is listed twice`},
		{"empty", dest("        events: []\n"), "line 11: clients[0].destinations[0].events: must name at least one of non-sensitive"},
		{"negative rate", dest("        maxPerSecond: -1\n"), "line 11: clients[0].destinations[0].maxPerSecond: must be between 0 (unbounded) and 10000"},
		{"bad previous secret", dest("        auth:\n          hmac:\n            secret: " + whsec + "\n            previousSecrets: [nope]\n"),
			"line 14: clients[0].destinations[0].auth.hmac.previousSecrets[0]: must be whsec_"},
		{"bad expiry", dest("        auth:\n          hmac:\n            secret: " + whsec + "\n            previousSecrets:\n              - {secret: " + whsec + ", expires: tomorrow}\n"),
			"line 15: clients[0].destinations[0].auth.hmac.previousSecrets[0].expires: must be an RFC 3339 time"},
		{"unknown previous secret key", dest("        auth:\n          hmac:\n            secret: " + whsec + "\n            previousSecrets:\n              - {secret: " + whsec + ", until: x}\n"),
			`line 15: unknown key "until"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml), env(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestPreviousSecretsTakeAPlainStringOrAnExpiry(t *testing.T) {
	t.Parallel()
	y := minimal + `    destinations:
      - type: webhook
        url: https://example.com/x
        auth:
          hmac:
            secret: ` + whsec + `
            previousSecrets:
              - ` + whsec + `
              - secret: ` + whsec + `
                expires: 2026-12-01T09:00:00Z
`
	cfg, err := config.Parse([]byte(y), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	prev := cfg.Destination("acme", "production-1").Auth.HMAC.PreviousSecrets
	if len(prev) != 2 || prev[0].Secret != whsec || !prev[0].ExpiresAt().IsZero() || prev[1].Secret != whsec {
		t.Fatalf("previous secrets = %+v", prev)
	}
	if want := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC); !prev[1].ExpiresAt().Equal(want) {
		t.Fatalf("expires %v, want %v", prev[1].ExpiresAt(), want)
	}
}

func TestOperatorEventsAreSignedEndpoints(t *testing.T) {
	t.Parallel()
	ok := "operatorEvents:\n  - {id: oncall, url: \"https://ops.example.com/pads\", hmac: {secret: " + whsec + "}}\n" + minimal
	cfg, err := config.Parse([]byte(ok), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.OperatorEvents; len(o) != 1 || o[0].Timeout.D() != 30*time.Second || cfg.Destinations.FailingAfter != config.DefaultFailingAfter {
		t.Fatalf("operator events = %+v, failingAfter %d", o, cfg.Destinations.FailingAfter)
	}
	tests := []struct{ name, yaml, want string }{
		{"unsigned", "operatorEvents:\n  - {id: oncall, url: \"https://ops.example.com/pads\"}\n" + minimal, "operatorEvents[0].hmac.secret: is required"},
		{"plain http", "operatorEvents:\n  - {id: oncall, url: \"http://ops.example.com/pads\", hmac: {secret: " + whsec + "}}\n" + minimal, "line 2: operatorEvents[0].url: must use https"},
		{"twice", "operatorEvents:\n  - {id: a, url: \"https://o.example.com/\", hmac: {secret: " + whsec + "}}\n  - {id: a, url: \"https://o.example.com/\", hmac: {secret: " + whsec + "}}\n" + minimal,
			`line 3: operatorEvents[1].id: operator endpoint "a" is defined twice`},
		{"threshold", "destinations: {failingAfter: -2}\n" + minimal, "line 1: destinations.failingAfter: must be between 1 and 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml), env(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadForReadingStandsInOnlyForTheSecretsOfSending(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	y := strings.Replace(minimal, `key: "0123456789abcdef"`, `key: "${CLIENT_KEY}"`, 1) + `    destinations:
      - type: webhook
        url: https://example.com/x
        auth:
          bearer: {token: "${DEST_TOKEN}"}
          hmac: {secret: "${DEST_WHSEC}", previousSecrets: ["${OLD_WHSEC}"]}
`
	path := dir + "/pads.yaml"
	if err := os.WriteFile(path, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	withKey := env(map[string]string{"CLIENT_KEY": "0123456789abcdef"})
	if _, err := config.Load(path, withKey); err == nil || !strings.Contains(err.Error(), "DEST_TOKEN is not set") {
		t.Fatalf("Load: %v", err)
	}
	cfg, err := config.LoadForReading(path, withKey)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.StandIns(); len(got) != 3 || !cfg.HasStandIn("clients[0].destinations[0]") || cfg.HasStandIn("operatorEvents") {
		t.Fatalf("stand-ins %v", got)
	}
	if _, err := config.LoadForReading(path, env(nil)); err == nil || !strings.Contains(err.Error(), "CLIENT_KEY is not set") {
		t.Fatalf("a client's API key is not a secret of sending: %v", err)
	}
}
