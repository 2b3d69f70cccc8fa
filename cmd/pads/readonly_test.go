package main

import (
	"os"
	"strings"
	"testing"
)

// TestCommandsThatSendNothingRunWithoutTheDestinationsSecrets: with a
// destination's signing secret and API key given as ${NAME}s that are
// not in the environment, pads deliveries list, audit, destinations list
// and pause run; pads destinations test, which sends, says which variable
// is missing.
func TestCommandsThatSendNothingRunWithoutTheDestinationsSecrets(t *testing.T) {
	path := deliveryConfig(t, "      - id: clinic\n        type: webhook\n        url: https://clinic.example/hook\n"+
		"        auth:\n          apiKey: {header: X-Key, value: \"${CLINIC_KEY}\"}\n          hmac: {secret: \"${CLINIC_WHSEC}\"}\n", "")
	text := strings.Replace(readFile(t, path), "clients:", "operatorEvents:\n  - {id: oncall, url: \"https://ops.example/pads\", hmac: {secret: \"${OPS_WHSEC}\"}}\nclients:", 1)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"deliveries", "list"},
		{"audit"},
		{"destinations", "list"},
		{"destinations", "pause", "acme/clinic"},
		{"destinations", "resume", "acme/clinic"},
	} {
		if out, err := runCLI(append(args, "--config", path)...); err != nil {
			t.Errorf("pads %v without the secrets: %v\n%s", args, err, out)
		}
	}
	if _, err := runCLI("destinations", "test", "acme/clinic", "--config", path); err == nil || !strings.Contains(err.Error(), "CLINIC_KEY is not set") {
		t.Fatalf("a test send without the secrets: %v", err)
	}
}
