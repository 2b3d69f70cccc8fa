package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func TestHelpGivesEveryCommandItsPurpose(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"help"}, func(string) string { return "" }, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if c.purpose == "" || !strings.Contains(out.String(), c.name) || !strings.Contains(out.String(), c.purpose) {
			t.Errorf("pads help lacks %q with its purpose:\n%s", c.name, out.String())
		}
	}
}

// TestEachCommandsHelpShowsItsOwnFlagsAndSucceeds: pads CMD --help exits 0
// and lists that command's flags, none of another's.
func TestEachCommandsHelpShowsItsOwnFlagsAndSucceeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command string
		want    []string
		notWant []string
	}{
		{"demo", []string{"-format", "-dir"}, []string{"-config"}},
		{"serve", []string{"-config", "-listen", "-data-dir"}, []string{"-limit"}},
		{"listen", []string{"-listen", "-secret", "-forward-to", "-data-dir"}, []string{"-config"}},
		{"reload", []string{"-config"}, []string{"-listen"}},
		{"deliveries list", []string{"-status", "-client", "-limit", "-config"}, []string{"-failed", "-since"}},
		{"deliveries show", []string{"-config"}, []string{"-status", "-client", "-failed", "-since", "-limit"}},
		{"deliveries replay", []string{"-failed", "-since", "-client", "-config"}, []string{"-status", "-limit"}},
		{"destinations list", []string{"-config"}, []string{"-client"}},
		{"destinations test", []string{"-config"}, []string{"-client"}},
		{"destinations pause", []string{"-reason", "-config"}, []string{"-client"}},
		{"destinations resume", []string{"-config"}, []string{"-reason"}},
		{"records reseal", []string{"-config"}, []string{"-client"}},
		{"records erase", []string{"-client", "-patient", "-email", "-config"}, []string{"-out"}},
		{"records export", []string{"-client", "-patient", "-email", "-out", "-fhir", "-config"}, []string{"-limit"}},
		{"backup", []string{"-config"}, []string{"-client"}},
		{"audit", []string{"-limit", "-config"}, []string{"-client"}},
		{"tokens revoke", []string{"-client", "-config"}, []string{"-limit"}},
		{"keys api", nil, []string{"-config"}},
		{"keys secret", nil, []string{"-config"}},
		{"keys whsec", nil, []string{"-config"}},
	}
	tested := map[string]bool{"help": true, "version": true}
	for _, tt := range tests {
		tested[tt.command] = true
		for _, h := range []string{"--help", "-h"} {
			var out, errOut bytes.Buffer
			args := append(strings.Fields(tt.command), h)
			if err := run(context.Background(), args, func(string) string { return "" }, &out, &errOut); err != nil {
				t.Errorf("pads %s %s: %v, want success", tt.command, h, err)
				continue
			}
			got := out.String()
			if !strings.HasPrefix(got, "usage: pads "+tt.command) || !strings.Contains(got, commandNamed(tt.command).purpose) {
				t.Errorf("pads %s %s starts:\n%s", tt.command, h, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, "  "+w+" ") && !strings.Contains(got, "  "+w+"\n") {
					t.Errorf("pads %s %s lacks its flag %s:\n%s", tt.command, h, w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, "  "+w+" ") || strings.Contains(got, "  "+w+"\n") {
					t.Errorf("pads %s %s shows %s, another command's flag:\n%s", tt.command, h, w, got)
				}
			}
		}
	}
	for _, c := range commands {
		if !tested[c.name] {
			t.Errorf("command %q has no --help case here", c.name)
		}
	}
}

func TestAWrongFlagIsAUsageErrorNamingTheCommand(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"deliveries", "show", "--status", "failed"}, func(string) string { return "" }, &out, &errOut)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "pads deliveries show --help") {
		t.Fatalf("err = %v, want a usage error pointing at deliveries show --help", err)
	}
	if !strings.Contains(errOut.String(), "flag provided but not defined: -status") {
		t.Errorf("stderr = %q", errOut.String())
	}
}
