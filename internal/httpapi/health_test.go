package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestHealthReadyAndMetrics(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	if r := a.do("GET", "/healthz", nil, ""); r.status != 200 || r.body["status"] != "ok" {
		t.Fatalf("healthz: %d %s", r.status, r.raw)
	}
	if r := a.do("GET", "/readyz", nil, ""); r.status != 200 || r.body["status"] != "ready" {
		t.Fatalf("readyz: %d %s", r.status, r.raw)
	}
	tok := a.token("acme", acmeKey, "storage")
	a.save(tok, "non-sensitive", `{`+ada+`}`)
	r := a.do("GET", "/metrics", nil, "")
	for _, want := range []string{
		`pads_http_requests_total{method="POST",route="POST /patient/savePatientData",status="201"} 1`,
		`pads_saves_total{data_type="non-sensitive",result="created"} 1`,
		`pads_logins_total{audience="storage",outcome="ok"} 1`,
		`pads_save_batch_size_count 1`,
		`pads_db_commit_duration_seconds_count{outcome="ok"} `,
		`pads_http_request_duration_seconds_bucket{route="POST /storage/authenticate"`,
	} {
		if !strings.Contains(r.raw, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if r := a.do("GET", "/no/such/thing", nil, ""); r.status != http.StatusNotFound || r.body["message"] != "Not found" {
		t.Fatalf("404: %d %s", r.status, r.raw)
	}
	if r := a.do("GET", "/healthz", map[string]string{"X-Request-Id": "trace-123"}, ""); r.header.Get("X-Request-Id") != "trace-123" {
		t.Fatal("a plain caller request id must be kept")
	}
	if r := a.do("GET", "/healthz", map[string]string{"X-Request-Id": "bad id\twith spaces"}, ""); strings.Contains(r.header.Get("X-Request-Id"), " ") {
		t.Fatal("an unsafe caller request id must be replaced")
	}
}
