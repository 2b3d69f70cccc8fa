package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// arrivals are the events a receiver was sent, as "uuid event" in order.
func arrivals(rc *receiver) []string {
	var out []string
	for _, r := range rc.all() {
		var body struct{ UUID string }
		json.Unmarshal(r.body, &body)
		out = append(out, body.UUID+" "+r.header.Get("X-Pads-Event"))
	}
	return out
}

// TestAPausedDestinationWaitsAcrossARestartAndResumesInOrder, on both
// stores: a paused destination is sent nothing, and pads destinations
// list says so with the reason, before and after a restart; its
// deliveries wait without using an attempt; once resumed, they go, each
// record's in the order of its events.
func TestAPausedDestinationWaitsAcrossARestartAndResumesInOrder(t *testing.T) {
	onStores(t, func(t *testing.T, useStore func(string)) {
		rc := newReceiver(t, nil)
		other := newReceiver(t, nil)
		path := deliveryConfig(t, "      - id: clinic\n        type: webhook\n        url: "+rc.srv.URL+"\n"+
			"      - id: crm\n        type: webhook\n        url: "+other.srv.URL+"\n        events: [non-sensitive]\n", "")
		useStore(path)
		out := cli(t, "destinations", "pause", "acme/clinic", "--reason", "maintenance until 14:00", "--config", path)
		if !strings.Contains(out, "paused acme/clinic") {
			t.Fatalf("pause: %s", out)
		}
		s := startServerAt(t, path)
		tok := s.token("acme", acmeKey, "storage")
		var uuids []string
		for i := range 3 {
			email := fmt.Sprintf("p%d@example.com", i)
			uuids = append(uuids, completeForm(t, s, tok, "acme-main", email))
			completeAssessment(t, s, tok, "acme-main", email)
		}
		other.wait(t, 3, 10*time.Second) // the other destination is not held up
		s.stop()
		s = startServerAt(t, path) // the pause holds across a restart
		// A new record's identity reaching the other destination shows the
		// dispatcher has run past the paused one's six deliveries, which
		// were due before it: no fixed wait for nothing to happen.
		completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "witness@example.com")
		other.wait(t, 4, 10*time.Second)
		if n := len(rc.all()); n != 0 {
			t.Fatalf("a paused destination was sent %d deliveries", n)
		}
		list := cli(t, "destinations", "list", "--config", path)
		if !strings.Contains(list, "paused since") || !strings.Contains(list, "maintenance until 14:00") {
			t.Fatalf("destinations list:\n%s", list)
		}
		pending := cli(t, "deliveries", "list", "--status", "pending", "--config", path)
		if strings.Count(pending, "clinic") != 7 {
			t.Fatalf("want 7 deliveries waiting, unattempted:\n%s", pending)
		}
		if !strings.Contains(cli(t, "deliveries", "show", "1", "--config", path), "series:      1") {
			t.Fatal("delivery 1")
		}
		out = cli(t, "destinations", "resume", "acme/clinic", "--config", path)
		if !strings.Contains(out, "resumed acme/clinic") {
			t.Fatalf("resume: %s", out)
		}
		rc.wait(t, 7, 10*time.Second)
		if n := len(rc.all()); n != 7 {
			t.Fatalf("the resumed destination was sent %d deliveries, want its 7", n)
		}
		order := arrivals(rc)
		for _, u := range uuids {
			var events []string
			for _, a := range order {
				if strings.HasPrefix(a, u+" ") {
					events = append(events, strings.TrimPrefix(a, u+" "))
				}
			}
			if !slices.Equal(events, []string{"non-sensitive", "sensitive"}) {
				t.Errorf("record %s's events arrived as %v", u, events)
			}
		}
		audit := cli(t, "audit", "--config", path)
		for _, action := range []string{"destinations.pause", "destinations.resume"} {
			if !strings.Contains(audit, action) {
				t.Errorf("the audit log lacks %s", action)
			}
		}
	})
}

// TestAPauseReachesEveryPostgreSQLProcessWithinFiveSeconds runs two pads
// serve processes on one database: a pause made by the CLI stops both
// within 5 s, and a resume starts both again.
func TestAPauseReachesEveryPostgreSQLProcessWithinFiveSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	rc, crm := newReceiver(t, nil), newReceiver(t, nil)
	jwt, enc := config.NewSecret(), config.NewSecret()
	dir := t.TempDir()
	path := writeConfig(t, dir, fmt.Sprintf(`listen: 127.0.0.1:0
dataDir: %s
database: %s
secrets:
  jwtKeys: [{id: k1, key: %q}]
  encryptionKeys: [{id: e1, key: %q}]
destinations: {allowPrivateNetworks: true, allowPlainHTTP: true}
clients:
  - id: acme
    apiKeys: [{key: %s}]
    subscription: full
    funnels: [{id: acme-main}]
    destinations:
      - {id: clinic, type: webhook, url: %q}
      - {id: crm, type: webhook, url: %q}
`, filepath.Join(dir, "data"), dbURL, jwt, enc, acmeKey, rc.srv.URL, crm.srv.URL))
	procs := []*proc{startProc(t, dir, "--config", path), startProc(t, dir, "--config", path)}
	tok := procToken(t, procs[0].base, "acme", acmeKey)
	save := func(p *proc, email string) {
		r := doHTTP(t, p.base, "POST", "/patient/savePatientData?dataType=non-sensitive", map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
			fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":%q,"formCompleted":true}`, email))
		if r.status != 201 {
			t.Fatalf("save: %d %s", r.status, r.raw)
		}
	}
	cli(t, "destinations", "pause", "acme/clinic", "--config", path)
	// The bound this test holds pads to. Nothing tells when a process has
	// read the pauses again (every deliver.PauseRefresh), so the test
	// waits the bound out: the one sleep a pause made elsewhere needs.
	time.Sleep(5 * time.Second)
	for i := range 10 {
		save(procs[i%2], fmt.Sprintf("p%d@example.com", i))
	}
	// The other destination's deliveries of the same saves show both
	// processes have run past the paused one's.
	crm.wait(t, 10, 10*time.Second)
	if n := len(rc.all()); n != 0 {
		t.Fatalf("5 s after the pause, its destination was sent %d deliveries", n)
	}
	cli(t, "destinations", "resume", "acme/clinic", "--config", path)
	rc.wait(t, 10, 5*time.Second)
	for _, p := range procs {
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.wait()
	}
}

// TestA410GonePausesTheDestinationAndTellsTheOperator: a destination that
// answers 410 Gone is paused (its attempt recorded as http_410_gone, the
// delivery waiting), the operator endpoint is told destination.paused,
// and once resumed the deliveries go.
func TestA410GonePausesTheDestinationAndTellsTheOperator(t *testing.T) {
	onStores(t, func(t *testing.T, useStore func(string)) {
		var mu sync.Mutex
		gone := true
		rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			if gone {
				w.WriteHeader(http.StatusGone)
			}
		})
		ops := newOperatorReceiver(t)
		path := deliveryConfig(t, "      - id: clinic\n        type: webhook\n        url: "+rc.srv.URL+"\n        events: [non-sensitive]\n", "")
		withOperatorEvents(t, path, ops.srv.URL, "")
		useStore(path)
		s := startServerAt(t, path)
		tok := s.token("acme", acmeKey, "storage")
		completeForm(t, s, tok, "acme-main", "a@example.com")
		completeForm(t, s, tok, "acme-main", "b@example.com")
		e := ops.waitFor(t, "destination.paused")
		if e.Data.Destination != "clinic" || e.Data.By != "destination" || e.Data.StatusCode != 410 {
			t.Fatalf("operator event %+v", e)
		}
		// Both may have been in flight at the first 410: wait until every
		// attempt that reached the destination is recorded. (That nothing
		// more goes to it while paused is TestA410GonePausesItsDestination's,
		// in internal/deliver, on a fake clock.)
		var before int
		var out string
		waitFor(t, func() bool {
			before = len(rc.all())
			out = cli(t, "deliveries", "list", "--config", path)
			return strings.Count(out, "http_410_gone") == before
		})
		if before != 1 && before != 2 {
			t.Fatalf("%d requests to a destination that answered 410 Gone", before)
		}
		if strings.Count(out, "pending") != 2 {
			t.Fatalf("deliveries, all waiting, %d after a 410 Gone:\n%s", before, out)
		}
		if list := cli(t, "destinations", "list", "--config", path); !strings.Contains(list, "by destination: the destination answered 410 Gone") {
			t.Fatalf("destinations list:\n%s", list)
		}
		mu.Lock()
		gone = false
		mu.Unlock()
		cli(t, "destinations", "resume", "acme/clinic", "--config", path)
		if len(rc.wait(t, before+2, 10*time.Second)) != before+2 {
			t.Fatal("after the resume")
		}
		ops.waitFor(t, "destination.resumed")
	})
}
