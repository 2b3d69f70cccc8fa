package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// kitReceiver is a receiver of docs/receivers running as its own process;
// lines are the JSON lines it printed.
type kitReceiver struct {
	url   string
	mu    sync.Mutex
	lines []map[string]string
}

func (k *kitReceiver) all() []map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.lines)
}

// with returns the lines that have key.
func (k *kitReceiver) with(key string) []map[string]string {
	var out []map[string]string
	for _, l := range k.all() {
		if _, ok := l[key]; ok {
			out = append(out, l)
		}
	}
	return out
}

// startKit runs cmd (a receiver of docs/receivers) with the webhook secret
// whsec1 on a free port, and reads what it prints.
func startKit(t *testing.T, cmd *exec.Cmd) *kitReceiver {
	t.Helper()
	cmd.Env = append(os.Environ(), "PADS_WHSEC="+whsec1, "PADS_RECEIVER_ADDR=127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	k := &kitReceiver{}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var line map[string]string
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			if addr, ok := line["listening"]; ok {
				listening <- addr
			}
			k.mu.Lock()
			k.lines = append(k.lines, line)
			k.mu.Unlock()
		}
	}()
	select {
	case addr := <-listening:
		k.url = "http://" + addr + "/webhooks/pads"
	case <-time.After(busyWait):
		t.Fatalf("the receiver did not start: %s", stderr.String())
	}
	return k
}

// TestReceiverKit runs each receiver of docs/receivers against a running
// pads, with a seed-json and a fhir-r4 destination: it takes both events in
// both formats, processes a replayed delivery (same webhook-id) once, and
// refuses forged and stale requests. It runs before the parallel tests,
// not beside them: it builds and starts processes, and the timing tests
// need the CPU.
func TestReceiverKit(t *testing.T) {
	for name, command := range receiverKits {
		t.Run(name, func(t *testing.T) {
			k := startKit(t, command(t))
			hmac := "        auth:\n          hmac: {secret: " + whsec1 + "}\n        retry: {attempts: 3, initialDelay: 200ms}\n"
			path := deliveryConfig(t, "      - id: crm\n        type: webhook\n        url: "+k.url+"\n"+hmac+
				"      - id: ehr\n        type: webhook\n        format: fhir-r4\n        url: "+k.url+"\n"+hmac, "")
			s := startServerAt(t, path)
			tok := s.token("acme", acmeKey, "storage")
			uuid := completeForm(t, s, tok, "acme-main", "ada@example.com")
			completeAssessment(t, s, tok, "acme-main", "ada@example.com")
			waitFor(t, func() bool { return len(k.with("processed")) == 4 })
			var got []string
			for _, l := range k.with("processed") {
				if l["uuid"] != uuid {
					t.Errorf("processed %v, want uuid %s", l, uuid)
				}
				got = append(got, l["format"]+" "+l["event"])
			}
			slices.Sort(got)
			if want := []string{"fhir-r4 non-sensitive", "fhir-r4 sensitive", "seed-json non-sensitive", "seed-json sensitive"}; !slices.Equal(got, want) {
				t.Fatalf("processed %v, want %v", got, want)
			}

			// A replay sends delivery 1 again under its webhook-id: the
			// receiver answers 2xx (it is delivered again) and drops it.
			waitForDelivery(t, path, "delivered")
			if out := cli(t, "deliveries", "replay", "1", "--config", path); !strings.Contains(out, "replayed 1") {
				t.Fatalf("replay: %s", out)
			}
			waitFor(t, func() bool { return len(k.with("duplicate")) == 1 })
			if out := waitForDelivery(t, path, "delivered"); !strings.Contains(out, "series:      2") {
				t.Fatalf("delivery 1 after the replay:\n%s", out)
			}
			if n := len(k.with("processed")); n != 4 {
				t.Fatalf("processed %d deliveries after the replay, want 4", n)
			}

			// Forged and stale requests are refused, and not processed.
			body := `{"uuid":"x","formCompleted":true}`
			wh, _ := standardwebhooks.NewWebhook(whsec1)
			for i, c := range []struct {
				at     time.Time
				forged bool
			}{{time.Now().Add(-10 * time.Minute), false}, {time.Now().Add(10 * time.Minute), false}, {time.Now(), true}} {
				id := fmt.Sprintf("msg_refused%d", i)
				sig, _ := wh.Sign(id, c.at, []byte(body))
				if c.forged {
					sig = "v1,Zm9yZ2VkIHNpZ25hdHVyZQ=="
				}
				req, _ := http.NewRequest("POST", k.url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("webhook-id", id)
				req.Header.Set("webhook-timestamp", strconv.FormatInt(c.at.Unix(), 10))
				req.Header.Set("webhook-signature", sig)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("request %d (at %v, forged %v): %d, want 401", i, c.at, c.forged, resp.StatusCode)
				}
			}
			waitWithin(busyWait, func() bool { return len(k.with("rejected")) >= 3 })
			if n := len(k.with("processed")); n != 4 || len(k.with("rejected")) != 3 {
				t.Fatalf("after 3 refused requests: %d processed, %d rejected", n, len(k.with("rejected")))
			}
		})
	}
}

// receiverKits make the command of each receiver of docs/receivers: the
// Go one built, the Node one from its installed packages (skipped where
// they are not, except under CI).
var receiverKits = map[string]func(t *testing.T) *exec.Cmd{
	"go": func(t *testing.T) *exec.Cmd {
		bin := filepath.Join(t.TempDir(), "receiver")
		if out, err := exec.Command("go", "build", "-o", bin, "../../docs/receivers/go").CombinedOutput(); err != nil {
			t.Fatalf("go build docs/receivers/go: %v\n%s", err, out)
		}
		return exec.Command(bin)
	},
	"node": func(t *testing.T) *exec.Cmd {
		node, err := exec.LookPath("node")
		if err == nil {
			_, err = os.Stat("../../docs/receivers/node/node_modules/express")
		}
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("CI must install the Node receiver (npm ci --prefix docs/receivers/node): %v", err)
			}
			t.Skipf("the Node receiver is not installed (npm ci --prefix docs/receivers/node): %v", err)
		}
		return exec.Command(node, "../../docs/receivers/node/server.mjs")
	},
}
