package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var metricsListeningRE = regexp.MustCompile(`"msg":"metrics listening","addr":"([^"]+)"`)

// TestMetricsCanBeServedApartAndBehindAToken: with metrics.listen, the
// API's listener answers /metrics 404 and the metrics listener serves it;
// with metrics.token, a scrape without the token is refused.
func TestMetricsCanBeServedApartAndBehindAToken(t *testing.T) {
	t.Parallel()
	const token = "metrics-scrape-token-0123456789"
	dir := t.TempDir()
	path := writeConfig(t, dir, testConfig(filepath.Join(dir, "data"))+
		"metrics:\n  listen: 127.0.0.1:0\n  token: "+token+"\n")
	s := startServerAt(t, path)
	if r := s.do("GET", "/metrics", nil, ""); r.status != 404 {
		t.Fatalf("/metrics on the API's listener: %d", r.status)
	}
	m := metricsListeningRE.FindStringSubmatch(s.logs.String())
	if m == nil {
		t.Fatalf("no metrics listener:\n%s", s.logs.String())
	}
	base := "http://" + m[1]
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"no token", nil, 401},
		{"a wrong token", map[string]string{"Authorization": "Bearer " + token + "x"}, 401},
		{"the token", map[string]string{"Authorization": "Bearer " + token}, 200},
	} {
		r := doHTTP(t, base, "GET", "/metrics", tc.header, "")
		if r.status != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, r.status, tc.status)
		}
		if tc.status == 200 && !strings.Contains(r.raw, "pads_deliveries_pending") {
			t.Errorf("the metrics lack the queue gauges:\n%s", r.raw)
		}
	}

	// Without metrics.listen, the token guards the API's /metrics.
	dir2 := t.TempDir()
	s2 := startServerAt(t, writeConfig(t, dir2, testConfig(filepath.Join(dir2, "data"))+"metrics:\n  token: "+token+"\n"))
	if r := s2.do("GET", "/metrics", nil, ""); r.status != 401 || r.header.Get("WWW-Authenticate") == "" {
		t.Fatalf("/metrics without the token: %d", r.status)
	}
	if r := s2.do("GET", "/metrics", map[string]string{"Authorization": "Bearer " + token}, ""); r.status != 200 {
		t.Fatalf("/metrics with the token: %d", r.status)
	}
}
