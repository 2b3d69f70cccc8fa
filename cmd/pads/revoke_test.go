package main

import (
	"bytes"
	"context"
	"fmt"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// revocationBound is what docs/operations.md promises: a revocation is
// honoured by every process within 5 s.
const revocationBound = 5 * time.Second

const (
	acmeSecondKey = "acme-second-key-0123456789"
	acmeThirdKey  = "acme-third-key-0123456789"
)

func keysConfig(dir string, acmeKeys ...string) string {
	var keys strings.Builder
	for _, k := range acmeKeys {
		fmt.Fprintf(&keys, "      - sha256: %x\n", config.DigestAPIKey(k))
	}
	return fmt.Sprintf(`listen: 127.0.0.1:0
dataDir: %s
clients:
  - id: acme
    apiKeys:
%s    funnels: [{id: acme-main}]
  - id: globex
    apiKeys: [{key: %s}]
    funnels: [{id: globex-main}]
`, filepath.Join(dir, "data"), keys.String(), globexKey)
}

// saveStatus saves a record with tok and returns the status; a 401 must
// be the contract's Invalid token.
func saveStatus(t *testing.T, base, tok, funnel string) int {
	t.Helper()
	r := doHTTP(t, base, "POST", "/patient/savePatientData?dataType=non-sensitive",
		map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
		fmt.Sprintf(`{"assessmentType":"faceScan","funnelID":%q,"email":"r%d@example.com"}`, funnel, time.Now().UnixNano()))
	if r.status == 401 && (r.body["message"] != "Invalid token" || r.header.Get("WWW-Authenticate") != `Bearer error="invalid_token"`) {
		t.Fatalf("401 %s (WWW-Authenticate %q), want Invalid token", r.raw, r.header.Get("WWW-Authenticate"))
	}
	return r.status
}

// reload rewrites the config, sends SIGHUP and waits for pads to say it
// reloaded.
func reloadConfig(t *testing.T, p *proc, dir, text string) {
	t.Helper()
	n := strings.Count(p.logs.String(), `"msg":"config reloaded"`)
	writeConfig(t, dir, text)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool { return strings.Count(p.logs.String(), `"msg":"config reloaded"`) > n })
}

func TestRemovingOrRotatingAnAPIKeyRevokesItsTokensAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("signals a real process")
	}
	t.Parallel()
	dir := t.TempDir()
	path := writeConfig(t, dir, keysConfig(dir, acmeKey, acmeSecondKey))
	p := startProc(t, dir, "--config", path)
	first, second := procToken(t, p.base, "acme", acmeKey), procToken(t, p.base, "acme", acmeSecondKey)
	globex := procToken(t, p.base, "globex", globexKey)
	for _, tok := range []string{first, second, globex} {
		if s := saveStatus(t, p.base, tok, funnelOf(tok, globex)); s != 201 {
			t.Fatalf("before any change: %d", s)
		}
	}

	// Rotate the first key out: its tokens are refused from the reload on,
	// the second key's keep working.
	reloadConfig(t, p, dir, keysConfig(dir, acmeThirdKey, acmeSecondKey))
	if s := saveStatus(t, p.base, first, "acme-main"); s != 401 {
		t.Fatalf("a token of the rotated key after the reload: %d, want 401", s)
	}
	if s := saveStatus(t, p.base, second, "acme-main"); s != 201 {
		t.Fatalf("a token of the client's other key: %d, want 201", s)
	}
	if r := doHTTP(t, p.base, "POST", "/storage/authenticate", jsonHeader, fmt.Sprintf(`{"username":"acme","password":%q}`, acmeKey)); r.status != 401 {
		t.Fatalf("authenticate with the rotated key: %d", r.status)
	}
	third := procToken(t, p.base, "acme", acmeThirdKey)
	if s := saveStatus(t, p.base, third, "acme-main"); s != 201 {
		t.Fatalf("a token of the new key: %d", s)
	}

	// Remove the second key: its tokens go too; the third's stay.
	reloadConfig(t, p, dir, keysConfig(dir, acmeThirdKey))
	if s := saveStatus(t, p.base, second, "acme-main"); s != 401 {
		t.Fatalf("a token of the removed key: %d, want 401", s)
	}
	if s := saveStatus(t, p.base, third, "acme-main"); s != 201 {
		t.Fatalf("a token of the remaining key: %d", s)
	}
	if s := saveStatus(t, p.base, globex, "globex-main"); s != 201 {
		t.Fatalf("another client's token: %d", s)
	}
	if strings.Contains(p.logs.String(), first) || strings.Contains(p.logs.String(), acmeKey) {
		t.Fatal("a token or a key reached the log")
	}
}

func funnelOf(tok, globex string) string {
	if tok == globex {
		return "globex-main"
	}
	return "acme-main"
}

var revokedRE = regexp.MustCompile(`issued before (\S+):`)

// revokeTokens runs pads tokens revoke with $USER saying "ada" (the audit
// log must name the process's user instead) and returns the time before
// which the client's tokens are refused.
func revokeTokens(t *testing.T, path, client string) time.Time {
	t.Helper()
	var out, errs bytes.Buffer
	getenv := func(k string) string {
		if k == "USER" {
			return "ada"
		}
		return ""
	}
	if err := run(context.Background(), []string{"tokens", "revoke", "--client", client, "--config", path}, getenv, &out, &errs); err != nil {
		t.Fatalf("pads tokens revoke: %v\n%s", err, errs.String())
	}
	m := revokedRE.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("pads tokens revoke printed %q", out.String())
	}
	before, err := time.Parse(time.RFC3339, m[1])
	if err != nil {
		t.Fatal(err)
	}
	return before
}

// untilRefused returns how long tok kept working after start, failing
// past the documented bound.
func untilRefused(t *testing.T, base, tok string, start time.Time) time.Duration {
	t.Helper()
	if !waitWithin(revocationBound-time.Since(start), func() bool { return saveStatus(t, base, tok, "acme-main") == 401 }) {
		t.Fatalf("a revoked token still works %v after the revocation", revocationBound)
	}
	return time.Since(start)
}

func TestTokensRevokeRefusesEarlierTokensDurably(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	dir := t.TempDir()
	path := writeConfig(t, dir, testConfig(filepath.Join(dir, "data")))
	p := startProc(t, dir, "--config", path)
	old, globex := procToken(t, p.base, "acme", acmeKey), procToken(t, p.base, "globex", globexKey)
	if s := saveStatus(t, p.base, old, "acme-main"); s != 201 {
		t.Fatalf("before the revocation: %d", s)
	}

	start := time.Now()
	before := revokeTokens(t, path, "acme")
	took := untilRefused(t, p.base, old, start)
	t.Logf("the revoked token was refused %v after pads tokens revoke began (bound %v)", took.Round(time.Millisecond), revocationBound)
	if s := saveStatus(t, p.base, globex, "globex-main"); s != 201 {
		t.Fatalf("another client's token after the revocation: %d", s)
	}
	// A token issued after the revocation works.
	waitPast(before)
	fresh := procToken(t, p.base, "acme", acmeKey)
	if s := saveStatus(t, p.base, fresh, "acme-main"); s != 201 {
		t.Fatalf("a token issued after the revocation: %d", s)
	}

	// The revocation is in the database: a restarted pads refuses the old
	// token from its first request.
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait()
	p2 := startProc(t, dir, "--config", path)
	if s := saveStatus(t, p2.base, old, "acme-main"); s != 401 {
		t.Fatalf("the revoked token after a restart: %d, want 401", s)
	}
	if s := saveStatus(t, p2.base, fresh, "acme-main"); s != 201 {
		t.Fatalf("the later token after a restart: %d", s)
	}

	var out bytes.Buffer
	if err := run(context.Background(), []string{"audit", "--config", path}, func(string) string { return "" }, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(regexp.QuoteMeta(cliActor())+`\s+tokens\.revoke\s+client:acme`).MatchString(out.String()) ||
		strings.Contains(out.String(), "cli:ada") {
		t.Fatalf("the revocation is not in the audit log under the process's user (not $USER):\n%s", out.String())
	}
	if err := run(context.Background(), []string{"tokens", "revoke", "--client", "nobody", "--config", path}, func(string) string { return "" }, &out, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), `no client "nobody"`) {
		t.Fatalf("revoking an unknown client: %v", err)
	}
}

func TestTokensRevokeReachesEveryProcessOnPostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	dir := t.TempDir()
	path := writeConfig(t, dir, fmt.Sprintf(`listen: 127.0.0.1:0
dataDir: %s
database: %s
secrets:
  jwtKeys: [{id: k1, key: %q}]
  encryptionKeys: [{id: e1, key: %q}]
clients:
  - id: acme
    apiKeys: [{key: %s}]
    funnels: [{id: acme-main}]
`, filepath.Join(dir, "data"), dbURL, config.NewSecret(), config.NewSecret(), acmeKey))
	procs := []*proc{startProc(t, dir, "--config", path), startProc(t, dir, "--config", path)}
	old := procToken(t, procs[0].base, "acme", acmeKey)
	for i, p := range procs {
		if s := saveStatus(t, p.base, old, "acme-main"); s != 201 {
			t.Fatalf("process %d before the revocation: %d", i, s)
		}
	}
	start := time.Now()
	before := revokeTokens(t, path, "acme")
	for i, p := range procs {
		took := untilRefused(t, p.base, old, start)
		t.Logf("process %d refused the revoked token %v after pads tokens revoke began", i, took.Round(time.Millisecond))
	}
	waitPast(before)
	fresh := procToken(t, procs[1].base, "acme", acmeKey)
	for i, p := range procs {
		if s := saveStatus(t, p.base, fresh, "acme-main"); s != 201 {
			t.Fatalf("process %d, a token issued after the revocation: %d", i, s)
		}
	}
}

// waitPast waits until the real clock has passed at: a token carries its
// issue time in whole seconds, so one issued after a revocation must be
// issued after the second the revocation names, on the processes' clock.
func waitPast(at time.Time) { time.Sleep(time.Until(at)) }

func TestCLIActorIsTheUserIDsNameOrTheID(t *testing.T) {
	t.Parallel()
	found := func(string) (*user.User, error) { return &user.User{Username: "ada"}, nil }
	missing := func(id string) (*user.User, error) { return nil, user.UnknownUserIdError(1234) }
	if got := actorOfUID(1000, found); got != "cli:ada" {
		t.Errorf("actor = %q", got)
	}
	if got := actorOfUID(1234, missing); got != "cli:uid:1234" {
		t.Errorf("actor of an unnamed uid = %q", got)
	}
}

// TestTokensRevokeAdminRefusesTheAdminsTokens: pads tokens revoke --admin
// refuses the admin's admin API tokens issued until then, and leaves a
// client of the same id alone.
func TestTokensRevokeAdminRefusesTheAdminsTokens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := strings.Replace(testConfig(filepath.Join(dir, "data")), "clients:", fmt.Sprintf("admins:\n  - id: acme\n    apiKeys: [{key: %s}]\nclients:", opsKey), 1)
	path := writeConfig(t, dir, text)
	s := startServerAt(t, path)
	r := s.do("POST", "/admin/authenticate", jsonHeader, `{"username":"acme","password":"`+opsKey+`"}`)
	if r.status != 200 {
		t.Fatalf("admin authenticate: %d %s", r.status, r.raw)
	}
	admin := map[string]string{"Authorization": "Bearer " + r.body["token"].(string)}
	client := s.token("acme", acmeKey, "storage")
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"tokens", "revoke", "--admin", "acme", "--config", path}, func(string) string { return "" }, &out, &errs); err != nil {
		t.Fatalf("pads tokens revoke --admin: %v\n%s", err, errs.String())
	}
	if !strings.Contains(out.String(), `revoked the tokens of admin "acme"`) {
		t.Fatalf("printed %q", out.String())
	}
	if !waitWithin(revocationBound, func() bool { return s.do("GET", "/admin/deliveries", admin, "").status == 401 }) {
		t.Fatalf("a revoked admin token still works %v after the revocation", revocationBound)
	}
	if r := s.save(client, "non-sensitive", `{"assessmentType":"faceScan","funnelID":"acme-main","email":"a@example.com"}`); r.status != 201 {
		t.Fatalf("the client of the same id after its admin namesake's revocation: %d %s", r.status, r.raw)
	}
	if err := run(context.Background(), []string{"tokens", "revoke", "--admin", "nobody", "--config", path}, func(string) string { return "" }, &out, &errs); err == nil ||
		!strings.Contains(err.Error(), `no admin "nobody"`) {
		t.Fatalf("revoking an unknown admin: %v", err)
	}
}
