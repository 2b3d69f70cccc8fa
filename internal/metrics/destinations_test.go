package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEachClientsRedFlagSeriesIsThereFromTheLoad: an alert on any increase
// of the red-flag counter needs the series before the first red flag, or
// the first one after a start goes unseen.
func TestEachClientsRedFlagSeriesIsThereFromTheLoad(t *testing.T) {
	t.Parallel()
	m := New()
	m.SetDestinations([][2]string{{"acme", "ehr"}, {"acme", "lab"}, {"globex", "crm"}})
	scrape := func() string {
		w := httptest.NewRecorder()
		m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		return w.Body.String()
	}
	body := scrape()
	for _, want := range []string{`pads_results_updated_red_flags_total{client="acme"} 0`,
		`pads_results_updated_red_flags_total{client="globex"} 0`, `pads_results_updated_red_flags_total{client="other"} 0`} {
		if !strings.Contains(body, want+"\n") {
			t.Fatalf("scrape lacks %s", want)
		}
	}
	m.ObserveRedFlag("acme")
	m.ObserveRedFlag("initech") // a client without destinations
	body = scrape()
	for _, want := range []string{`pads_results_updated_red_flags_total{client="acme"} 1`, `pads_results_updated_red_flags_total{client="other"} 1`} {
		if !strings.Contains(body, want+"\n") {
			t.Fatalf("scrape lacks %s", want)
		}
	}
}
