package config_test

import (
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/config"
)

func TestDestinationFormatDefaultsToSeedJSONAndIsChecked(t *testing.T) {
	t.Parallel()
	y := minimal + `    destinations:
      - {id: plain, type: webhook, url: "https://example.com/a"}
      - {id: ehr, type: webhook, url: "https://example.com/b", format: fhir-r4}
      - {id: topic, type: sns, topicArn: "arn:aws:sns:us-east-1:123456789012:t", region: us-east-1, format: fhir-r4}
`
	cfg, err := config.Parse([]byte(y), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"plain": config.FormatSeedJSON, "ehr": config.FormatFHIR, "topic": config.FormatFHIR} {
		if got := cfg.Destination("acme", id).Format; got != want {
			t.Errorf("%s: format %q, want %q", id, got, want)
		}
	}
	bad := minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n        format: fhir\n"
	if _, err := config.Parse([]byte(bad), env(nil)); err == nil || !strings.Contains(err.Error(), "line 11: clients[0].destinations[0].format: must be seed-json or fhir-r4") {
		t.Fatalf("err = %v", err)
	}
}
