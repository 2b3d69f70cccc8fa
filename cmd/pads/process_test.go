package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bin, err := buildPads(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

// proc is pads running as a real process.
type proc struct {
	cmd    *exec.Cmd
	base   string
	logs   *syncBuffer
	out    *syncBuffer
	exited chan struct{} // closed when the process has exited
	err    error         // its exit error, once exited is closed
}

// wait returns the process's exit error once it has exited.
func (p *proc) wait() error {
	<-p.exited
	return p.err
}

func startProc(t *testing.T, dir string, args ...string) *proc {
	t.Helper()
	return startProcEnv(t, dir, nil, args...)
}

// startProcEnv is startProc with env added to the process's environment.
func startProcEnv(t *testing.T, dir string, env []string, args ...string) *proc {
	t.Helper()
	bin, err := buildPads()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{logs: &syncBuffer{}, out: &syncBuffer{}}
	p.cmd = exec.Command(bin, append([]string{"serve"}, args...)...)
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = dir, p.out, p.logs
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.exited = make(chan struct{})
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.wait()
	})
	p.base = "http://" + waitForAddr(t, p.logs.String, p.exited, p.wait)
	return p
}

func writeConfig(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "pads.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func procToken(t *testing.T, base, client, key string) string {
	t.Helper()
	r := doHTTP(t, base, "POST", "/storage/authenticate", jsonHeader, fmt.Sprintf(`{"username":%q,"password":%q}`, client, key))
	if r.status != 200 {
		t.Fatalf("authenticate %s: %d %s", client, r.status, r.raw)
	}
	return r.body["token"].(string)
}

func TestAcknowledgedSavesSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real process")
	}
	t.Parallel()
	dir := t.TempDir()
	path := writeConfig(t, dir, testConfig(filepath.Join(dir, "data")))
	p := startProc(t, dir, "--config", path)
	tok := procToken(t, p.base, "acme", acmeKey)

	var (
		mu    sync.Mutex
		acked = map[string]string{} // patientUUID -> city sent
		count atomic.Int64
		wg    sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id, city := uuid.NewString(), fmt.Sprintf("city-%d-%d", w, i)
				r, err := tryHTTP(p.base, tok, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"%s@example.com","uuid":%q,"city":%q}`, id, id, city))
				if err != nil {
					return // the process is gone
				}
				if r == 201 {
					mu.Lock()
					acked[id] = city
					mu.Unlock()
					count.Add(1)
				}
			}
		})
	}
	waitFor(t, func() bool { return count.Load() >= 300 })
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait() // a kill is delivered, not done: the restart must find the lock free
	close(stop)
	wg.Wait()
	t.Logf("%d saves acknowledged before kill -9", len(acked))

	// Restarted on the same files, every acknowledged record is there.
	p2 := startProc(t, dir, "--config", path)
	tok = procToken(t, p2.base, "acme", acmeKey)
	for id := range acked {
		status, err := tryHTTP(p2.base, tok, fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"%s@example.com","uuid":%q}`, id, id))
		if err != nil || status != 200 {
			t.Fatalf("acknowledged record %s: status %d, %v (want 200: it exists)", id, status, err)
		}
	}
	p2.cmd.Process.Signal(syscall.SIGTERM)
	p2.wait()

	// And each holds the value that was acknowledged.
	cfg, err := config.Load(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	keys, _, err := config.LoadKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kr, _ := seal.NewKeyring(sealKeys(keys.Encryption))
	st, err := sqlite.Open(context.Background(), filepath.Join(cfg.DataDir, "pads.db"), store.Config{Keys: kr})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, city := range acked {
		rec, err := st.Get(context.Background(), record.Key{ClientID: "acme", PatientUUID: id, AssessmentType: "faceScan"})
		if err != nil || rec.Fields.City == nil || *rec.Fields.City != city {
			t.Fatalf("record %s: %v %v, want city %s", id, rec.Fields.City, err, city)
		}
	}
}

// tryHTTP posts one save and returns its status, or an error when the
// server could not be reached.
func tryHTTP(base, tok, body string) (int, error) {
	req, _ := newSaveRequest(base, tok, body)
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func TestSIGHUPReloadsAndKeepsTheOldConfigWhenInvalid(t *testing.T) {
	if testing.Short() {
		t.Skip("signals a real process")
	}
	t.Parallel()
	dir := t.TempDir()
	base := testConfig(filepath.Join(dir, "data"))
	path := writeConfig(t, dir, base)
	p := startProc(t, dir, "--config", path)

	withInitech := base + "  - id: initech\n    apiKeys: [{key: initech-key-0123456789}]\n    funnels: [{id: initech-main}]\n"
	writeConfig(t, dir, withInitech)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool {
		return doHTTP(t, p.base, "POST", "/storage/authenticate", jsonHeader, `{"username":"initech","password":"initech-key-0123456789"}`).status == 200
	})

	writeConfig(t, dir, withInitech+"    colour: blue\n")
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool { return strings.Contains(p.logs.String(), "config reload rejected") })
	if !strings.Contains(p.logs.String(), `unknown key \"colour\"`) {
		t.Fatalf("the rejection must say why:\n%s", p.logs.String())
	}
	if r := doHTTP(t, p.base, "POST", "/storage/authenticate", jsonHeader, `{"username":"initech","password":"initech-key-0123456789"}`); r.status != 200 {
		t.Fatalf("after a rejected reload the previous config stays: %d", r.status)
	}

	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(); err != nil {
		t.Fatalf("SIGTERM: pads exited with %v", err)
	}
}

var keyRE = regexp.MustCompile(`pads_[A-Za-z0-9_-]{43}`)

func TestFirstStartWritesAStarterConfigAndPrintsItsKeyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real process")
	}
	t.Parallel()
	dir := t.TempDir()
	p := startProc(t, dir, "--listen", "127.0.0.1:0")
	key := keyRE.FindString(p.out.String())
	if key == "" {
		t.Fatalf("no API key printed:\n%s", p.out.String())
	}
	tok := procToken(t, p.base, "demo", key)
	status, err := tryHTTP(p.base, tok, `{"assessmentType":"faceScan","funnelID":"demo-main","email":"ada@example.com"}`)
	if err != nil || status != 201 {
		t.Fatalf("save with the starter config: %d %v", status, err)
	}
	for _, f := range []string{"pads.yaml", "secrets.json", "pads.db"} {
		st, err := os.Stat(filepath.Join(dir, "pads-data", f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", f, st, err)
		}
	}
	var secrets map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "pads-data", "secrets.json"))
	if json.Unmarshal(data, &secrets) != nil || !strings.Contains(p.logs.String(), "generated new secrets") {
		t.Fatal("secrets must be generated and the log must say so")
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait()

	again := startProc(t, dir, "--listen", "127.0.0.1:0")
	if keyRE.MatchString(again.out.String()) {
		t.Fatal("the second start printed a key again")
	}
	if procToken(t, again.base, "demo", key) == "" {
		t.Fatal("the first key must still work")
	}
}

// busyWait is how long a test waits for something that takes
// milliseconds on a quiet machine: long enough for a loaded 2-core
// machine (seen: 10 s not enough), and only ever spent when it fails.
const busyWait = 60 * time.Second

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if !waitWithin(busyWait, cond) {
		t.Fatalf("condition not met in %v", busyWait)
	}
}

// waitWithin polls cond until it holds or within has passed, and reports
// whether it held. It is the suite's one poll: what another process (pads,
// a receiver, a browser) has done can only be seen by asking again.
func waitWithin(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func TestEveryDeliveryArrivesAfterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a real process")
	}
	t.Parallel()
	var healthy atomic.Bool
	var mu sync.Mutex
	delivered := map[string]bool{} // patient uuids acknowledged with 200
	var rc *receiver
	rc = newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if !healthy.Load() {
			<-r.Context().Done() // in flight until the process dies
			return
		}
		got := rc.all()
		var body struct{ UUID string }
		json.Unmarshal(got[n].body, &body)
		mu.Lock()
		delivered[body.UUID] = true
		mu.Unlock()
	})
	path := deliveryConfig(t, webhookDest(rc.srv.URL, "        retry: {attempts: 10, initialDelay: 100ms, multiplier: 1}\n"), "")
	dir := filepath.Dir(path)
	p := startProc(t, dir, "--config", path)
	tok := procToken(t, p.base, "acme", acmeKey)
	var saved []string
	for i := range 40 {
		r := doHTTP(t, p.base, "POST", "/patient/savePatientData?dataType=non-sensitive",
			map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
			fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":"acme-main","email":"p%d@example.com","formCompleted":true}`, i))
		if r.status != 201 {
			t.Fatalf("save: %d %s", r.status, r.raw)
		}
		saved = append(saved, r.body["patientUUID"].(string))
	}
	rc.waitReceived(t, 32, 10*time.Second) // attempts in flight: one destination's share
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait()
	healthy.Store(true)

	p2 := startProc(t, dir, "--config", path)
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(delivered) == len(saved)
	})
	for _, u := range saved {
		if !delivered[u] {
			t.Fatalf("delivery for %s never arrived", u)
		}
	}
	if !strings.Contains(p2.logs.String(), "took over deliveries left by a process that is gone") {
		t.Error("the restarted process must say it recovered in-flight deliveries")
	}
}

func TestASecondServeOnTheSameSQLiteDatabaseIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	dir := t.TempDir()
	path := writeConfig(t, dir, testConfig(filepath.Join(dir, "data")))
	startProc(t, dir, "--config", path)
	bin, _ := buildPads()
	out, err := exec.Command(bin, "serve", "--config", path).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another pads serve is using") {
		t.Fatalf("second serve: %v\n%s", err, out)
	}
}
