package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEachDestinationGetsTheEventsItLists, on both stores: a CRM that
// lists non-sensitive gets the identity only, an EHR that lists sensitive
// the results only, a destination that names none both, in order.
func TestEachDestinationGetsTheEventsItLists(t *testing.T) {
	onStores(t, func(t *testing.T, useStore func(string)) {
		crm, ehr, both := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
		path := deliveryConfig(t, "      - id: crm\n        type: webhook\n        url: "+crm.srv.URL+"\n        events: [non-sensitive]\n"+
			"      - id: ehr\n        type: webhook\n        url: "+ehr.srv.URL+"\n        events: [sensitive]\n"+
			"      - id: both\n        type: webhook\n        url: "+both.srv.URL+"\n", "")
		useStore(path)
		s := startServerAt(t, path)
		tok := s.token("acme", acmeKey, "storage")
		uuid := completeForm(t, s, tok, "acme-main", "ada@example.com")
		completeAssessment(t, s, tok, "acme-main", "ada@example.com")
		both.wait(t, 2, 10*time.Second)
		crm.wait(t, 1, 10*time.Second)
		ehr.wait(t, 1, 10*time.Second)
		// A delivery to a destination that does not list its event would
		// be in the store from the save on: the list below counts them,
		// with no wait for one to arrive.
		for name, tt := range map[string]struct {
			rc   *receiver
			want []string
		}{
			"crm":  {crm, []string{uuid + " non-sensitive"}},
			"ehr":  {ehr, []string{uuid + " sensitive"}},
			"both": {both, []string{uuid + " non-sensitive", uuid + " sensitive"}},
		} {
			if got := arrivals(tt.rc); !slices.Equal(got, tt.want) {
				t.Errorf("%s got %v, want %v", name, got, tt.want)
			}
		}
		if list := cli(t, "deliveries", "list", "--config", path); strings.Count(list, "\n") != 5 {
			t.Errorf("want 4 deliveries:\n%s", list)
		}
	})
}
