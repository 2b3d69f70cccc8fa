package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// deliveredCount waits until pads has recorded n deliveries as delivered
// (a receiver's answer is recorded just after it is sent), with the
// suite's one poll, and returns the list.
func deliveredCount(t *testing.T, path string, n int) string {
	t.Helper()
	var list string
	waitFor(t, func() bool {
		list = cli(t, "deliveries", "list", "--status", "delivered", "--config", path)
		return strings.Count(list, "\n")-1 >= n
	})
	return list
}

// TestALaterRedFlagReachesTheDestinationsThatTakeUpdates, on both stores:
// after the results of an assessment were delivered, a save that raises
// a red flag makes a results-updated event. The destinations that list
// results-updated and received the results get it, in their format, with
// X-Pads-Event: results-updated, the new results and the message id of
// the delivery it updates; a destination that does not list it gets
// nothing more. pads deliveries list shows the event, the red-flag metric
// counts it by client, a save that changes nothing raises nothing, and a
// replay sends the same snapshot again.
func TestALaterRedFlagReachesTheDestinationsThatTakeUpdates(t *testing.T) {
	onStores(t, func(t *testing.T, useStore func(string)) {
		ehr, fhirEHR, lab := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
		path := deliveryConfig(t, "      - id: ehr\n        type: webhook\n        url: "+ehr.srv.URL+"\n        events: [sensitive, results-updated]\n"+
			"      - id: fhir\n        type: webhook\n        url: "+fhirEHR.srv.URL+"\n        format: fhir-r4\n        events: [sensitive, results-updated]\n"+
			"      - id: lab\n        type: webhook\n        url: "+lab.srv.URL+"\n        events: [sensitive]\n", "")
		useStore(path)
		s := startServerAt(t, path)
		tok := s.token("acme", acmeKey, "storage")
		// An adult (an unknown age withholds every result, which then never
		// change); no destination takes identity data.
		form := s.save(tok, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com",
			"firstName":"Ada","age":40,"formCompleted":true}`)
		if form.status != 201 {
			t.Fatalf("form: %d %s", form.status, form.raw)
		}
		uuid := form.body["patientUUID"].(string)
		if r := s.save(tok, "sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com",
			"heartRateBpm":62,"systolicBloodPressureMmhg":118,"diastolicBloodPressureMmhg":76,"oxygen":98,"breathingRateBpm":14,
			"rmssd":45,"assessmentCompleted":true}`); r.status != 200 {
			t.Fatalf("assessment: %d %s", r.status, r.raw)
		}
		first := map[string]received{"ehr": ehr.wait(t, 1, 10*time.Second)[0], "fhir": fhirEHR.wait(t, 1, 10*time.Second)[0],
			"lab": lab.wait(t, 1, 10*time.Second)[0]}
		deliveredCount(t, path, 3)

		red := `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com","heartRateBpm":150}`
		if r := s.save(tok, "sensitive", red); r.status != 200 {
			t.Fatalf("later save: %d %s", r.status, r.raw)
		}
		update := ehr.wait(t, 2, 10*time.Second)[1]
		if got := update.header.Get("X-Pads-Event"); got != "results-updated" {
			t.Fatalf("X-Pads-Event: %q", got)
		}
		var body struct {
			UUID             string  `json:"uuid"`
			HeartRateBpm     float64 `json:"heartRateBpm"`
			UpdatesMessageID string  `json:"updatesMessageId"`
			Flags            []struct {
				Code, Severity string
			} `json:"flags"`
		}
		if err := json.Unmarshal(update.body, &body); err != nil {
			t.Fatal(err)
		}
		want := first["ehr"].header.Get("webhook-id")
		if body.UpdatesMessageID != want || body.HeartRateBpm != 150 || update.header.Get("webhook-id") == want ||
			!strings.Contains(string(update.body), `"heart-rate-above-130"`) {
			t.Fatalf("results-updated body updates %q (want %q), heart rate %v:\n%s", body.UpdatesMessageID, want, body.HeartRateBpm, update.body)
		}
		bundle := fhirEHR.wait(t, 2, 10*time.Second)[1]
		tag := fmt.Sprintf(`{"system":"https://pads.dev/fhir/CodeSystem/updates-message","code":%q}`, first["fhir"].header.Get("webhook-id"))
		if bundle.header.Get("X-Pads-Event") != "results-updated" || !strings.Contains(string(bundle.body), tag) ||
			!strings.Contains(string(bundle.body), `"code":"results-updated"`) {
			t.Fatalf("FHIR results-updated: %s\n%s", bundle.header.Get("X-Pads-Event"), bundle.body)
		}

		// The same reading again changes nothing: no event.
		if r := s.save(tok, "sensitive", red); r.status != 200 {
			t.Fatalf("same save: %d %s", r.status, r.raw)
		}
		list := deliveredCount(t, path, 5)
		all := cli(t, "deliveries", "list", "--config", path)
		if n := strings.Count(all, "results-updated"); n != 2 || strings.Count(all, "\n") != 1+3+2 {
			t.Fatalf("want the 2 deliveries of one results-updated event (ehr, fhir) beside the 3 of the results:\n%s", all)
		}
		if strings.Contains(regexp.MustCompile(`(?m)^.*results-updated.*$`).FindString(list), " lab ") {
			t.Fatalf("lab got an update:\n%s", list)
		}
		// Delivering the patient to lab again sends only what lab takes:
		// it has the results, and never gets the update.
		if out := cli(t, "deliveries", "replay", "--client", "acme", "--patient", uuid, "--destination", "lab", "--config", path); !strings.Contains(out, "0 enqueued for lab") {
			t.Fatalf("deliver the patient to lab: %s", out)
		}
		if got := len(lab.all()); got != 1 {
			t.Fatalf("lab received %d deliveries, want only the results", got)
		}
		if m := s.do("GET", "/metrics", nil, ""); !strings.Contains(m.raw, `pads_results_updated_red_flags_total{client="acme"} 1`) {
			t.Fatalf("metrics lack the red flag:\n%s", grepLines(m.raw, "red_flags"))
		}

		// A replay re-sends the update's snapshot: the same body.
		id := strings.Fields(regexp.MustCompile(`(?m)^\d+\s+\S+\s+acme\s+results-updated\s+ehr\s.*$`).FindString(all))
		if len(id) == 0 {
			t.Fatalf("no results-updated delivery to ehr listed:\n%s", all)
		}
		if out := cli(t, "deliveries", "replay", id[0], "--config", path); !strings.Contains(out, "each sends the snapshot its event stored") {
			t.Fatalf("replay: %s", out)
		}
		replayed := ehr.wait(t, 3, 10*time.Second)[2]
		if string(replayed.body) != string(update.body) || replayed.header.Get("X-Pads-Event") != "results-updated" {
			t.Fatalf("replay sent\n%s\nwant\n%s", replayed.body, update.body)
		}
	})
}

// TestAnUpdateGoesOnlyAfterTheResultsItReplaces, on both stores: a red
// flag saved while a destination's results are still on their way
// reaches it after them, naming them; one saved after a destination's
// results failed for good is sent all the same, naming none (the
// destination has no results message of pads to replace), and a replay
// of the failed deliveries sends the results, then the update.
func TestAnUpdateGoesOnlyAfterTheResultsItReplaces(t *testing.T) {
	onStores(t, func(t *testing.T, useStore func(string)) {
		started, release := make(chan struct{}), make(chan struct{})
		slow := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 0 { // the results: held until the red flag is saved
				close(started)
				<-release
			}
			w.WriteHeader(204)
		})
		var down atomic.Bool
		down.Store(true)
		flaky := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				w.WriteHeader(503)
				return
			}
			w.WriteHeader(204)
		})
		path := deliveryConfig(t, "      - id: slow\n        type: webhook\n        url: "+slow.srv.URL+"\n        events: [sensitive, results-updated]\n"+
			"      - id: flaky\n        type: webhook\n        url: "+flaky.srv.URL+"\n        events: [sensitive, results-updated]\n        retry: {attempts: 1}\n", "")
		useStore(path)
		s := startServerAt(t, path)
		defer func() {
			select {
			case <-release:
			default:
				close(release)
			}
		}()
		tok := s.token("acme", acmeKey, "storage")
		if r := s.save(tok, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com","age":40,"formCompleted":true}`); r.status != 201 {
			t.Fatalf("form: %d %s", r.status, r.raw)
		}
		if r := s.save(tok, "sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com",
			"heartRateBpm":62,"systolicBloodPressureMmhg":118,"diastolicBloodPressureMmhg":76,"oxygen":98,"breathingRateBpm":14,
			"rmssd":45,"assessmentCompleted":true}`); r.status != 200 {
			t.Fatalf("assessment: %d %s", r.status, r.raw)
		}
		<-started                            // slow's results are in flight
		waitForClass(t, path, "http_5xx", 1) // flaky's failed for good
		if r := s.save(tok, "sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"ada@example.com","oxygen":84}`); r.status != 200 {
			t.Fatalf("later save: %d %s", r.status, r.raw)
		}
		waitForClass(t, path, "http_5xx", 2) // flaky's update, sent, failed as flaky is down
		close(release)
		got := slow.wait(t, 2, 10*time.Second)
		if got[1].header.Get("X-Pads-Event") != "results-updated" || !strings.Contains(string(got[1].body),
			`"updatesMessageId":"`+got[0].header.Get("webhook-id")+`"`) {
			t.Fatalf("slow's second delivery: %s\n%s", got[1].header.Get("X-Pads-Event"), got[1].body)
		}
		if all := flaky.all(); len(all) != 2 || all[1].header.Get("X-Pads-Event") != "results-updated" ||
			!strings.Contains(string(all[1].body), `"updatesMessageId":null`) {
			t.Fatalf("flaky received %d requests, want its failed results, then the update naming none", len(all))
		}

		down.Store(false)
		if out := cli(t, "deliveries", "replay", "--failed", "--since", "1h", "--config", path); !strings.Contains(out, "replayed 2") {
			t.Fatalf("replay --failed: %s", out)
		}
		got = flaky.wait(t, 4, 10*time.Second)
		if got[2].header.Get("X-Pads-Event") != "sensitive" || got[2].header.Get("webhook-id") != got[0].header.Get("webhook-id") ||
			got[3].header.Get("X-Pads-Event") != "results-updated" || got[3].header.Get("webhook-id") != got[1].header.Get("webhook-id") {
			t.Fatalf("after the replay flaky got %s then %s:\n%s", got[2].header.Get("X-Pads-Event"), got[3].header.Get("X-Pads-Event"), got[3].body)
		}
	})
}

// waitForClass polls the CLI until n deliveries show the error class.
func waitForClass(t *testing.T, path, class string, n int) {
	t.Helper()
	waitFor(t, func() bool {
		return strings.Count(cli(t, "deliveries", "list", "--config", path), class) >= n
	})
}

// grepLines are the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// pads listen's first line of a delivery names the event and, for new
// results, the message they replace.
func TestListenSaysWhichMessageAnUpdateReplaces(t *testing.T) {
	t.Parallel()
	h := http.Header{"X-Pads-Event": {"results-updated"}}
	body := `{"uuid":"0193a1b2-0000-7000-8000-000000000001","assessmentType":"faceScan","updatesMessageId":"msg_0123456789abcdef0123456789abcdef"}`
	want := "event results-updated  patient 0193a1b2-0000-7000-8000-000000000001  faceScan  updates msg_0123456789abcdef0123456789abcdef"
	if got := summary(h, []byte(body)); got != want {
		t.Fatalf("summary = %q, want %q", got, want)
	}
}
