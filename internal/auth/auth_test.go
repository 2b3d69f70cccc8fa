package auth_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
)

var (
	k1 = auth.Key{ID: "k1", Secret: bytes.Repeat([]byte{1}, 32)}
	k2 = auth.Key{ID: "k2", Secret: bytes.Repeat([]byte{2}, 32)}
	t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
)

func TestMatchKey(t *testing.T) {
	t.Parallel()
	digests := [][32]byte{config.DigestAPIKey("first-key-0123456"), config.DigestAPIKey("second-key-012345")}
	tests := []struct {
		name    string
		digests [][32]byte
		key     string
		want    bool
	}{
		{"first key", digests, "first-key-0123456", true},
		{"second key", digests, "second-key-012345", true},
		{"wrong key", digests, "first-key-0123457", false},
		{"empty key", digests, "", false},
		{"unknown client", nil, "first-key-0123456", false},
	}
	for _, tt := range tests {
		if got := auth.MatchKey(tt.digests, tt.key); got != tt.want {
			t.Errorf("%s: MatchKey = %v, want %v", tt.name, got, tt.want)
		}
	}
	for key, want := range map[string]int{"first-key-0123456": 0, "second-key-012345": 1, "third-key-0123456": -1} {
		if got := auth.KeyIndex(digests, key); got != want {
			t.Errorf("KeyIndex(%s) = %d, want %d", key, got, want)
		}
	}
}

var (
	acmeKey1 = config.DigestAPIKey("acme-first-key-0123456")
	acmeKey2 = config.DigestAPIKey("acme-second-key-012345")
)

func clockAt(t *time.Time) func() time.Time { return func() time.Time { return *t } }

func TestTokensRoundTripAndAudienceBinding(t *testing.T) {
	t.Parallel()
	now := t0
	toks, err := auth.NewTokens("pads", []auth.Key{k1}, clockAt(&now))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := toks.Issue("acme", auth.AudienceStorage, time.Hour, acmeKey1)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := toks.Verify(tok, auth.AudienceStorage); err != nil || c.Subject != "acme" || !c.IssuedAt.Equal(t0) {
		t.Fatalf("Verify = %+v, %v", c, err)
	}
	if _, err := toks.Verify(tok, auth.AudienceSmile); err != auth.ErrInvalidToken {
		t.Fatalf("a storage token must not pass as a smile token: %v", err)
	}
	var claims jwt.MapClaims
	parsed, _, _ := jwt.NewParser().ParseUnverified(tok, &claims)
	if parsed.Header["kid"] != "k1" || parsed.Header["alg"] != "HS256" {
		t.Fatalf("header = %v", parsed.Header)
	}
	for _, c := range []string{"iss", "sub", "aud", "iat", "exp", "jti", "akid"} {
		if _, ok := claims[c]; !ok {
			t.Errorf("claim %s missing", c)
		}
	}
	now = t0.Add(time.Hour + time.Second)
	if _, err := toks.Verify(tok, auth.AudienceStorage); err != auth.ErrTokenExpired || !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("expired token: %v, want ErrTokenExpired, an ErrInvalidToken", err)
	}
	// Expired and signed with another key: a forgery, said to be no more
	// than invalid.
	other, _ := auth.NewTokens("pads", []auth.Key{{ID: "k1", Secret: []byte("another-secret-of-thirty-two-bytes!")}}, clockAt(&t0))
	forged, _ := other.Issue("acme", auth.AudienceStorage, time.Hour, [32]byte{1})
	if _, err := toks.Verify(forged, auth.AudienceStorage); err != auth.ErrInvalidToken {
		t.Fatalf("an expired forgery: %v, want ErrInvalidToken only", err)
	}
}

func TestVerifyRefusesForgedTokens(t *testing.T) {
	t.Parallel()
	now := t0
	toks, _ := auth.NewTokens("pads", []auth.Key{k1}, clockAt(&now))
	type payload struct {
		jwt.RegisteredClaims
		APIKey string `json:"akid,omitempty"`
	}
	claims := func() payload {
		return payload{RegisteredClaims: jwt.RegisteredClaims{Issuer: "pads", Subject: "acme", Audience: jwt.ClaimStrings{"storage"},
			IssuedAt: jwt.NewNumericDate(t0), ExpiresAt: jwt.NewNumericDate(t0.Add(time.Hour))}, APIKey: "some-key-id"}
	}
	sign := func(m jwt.SigningMethod, kid string, key any, c payload) string {
		tok := jwt.NewWithClaims(m, c)
		if kid != "" {
			tok.Header["kid"] = kid
		}
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	noExp := claims()
	noExp.ExpiresAt = nil
	future := claims()
	future.IssuedAt = jwt.NewNumericDate(t0.Add(time.Hour))
	nbf := claims()
	nbf.NotBefore = jwt.NewNumericDate(t0.Add(time.Minute))
	otherIss := claims()
	otherIss.Issuer = "someone"
	noKeyID := claims()
	noKeyID.APIKey = ""
	noneTok := sign(jwt.SigningMethodNone, "k1", jwt.UnsafeAllowNoneSignatureType, claims())
	valid := sign(jwt.SigningMethodHS256, "k1", k1.Secret, claims())

	tests := map[string]string{
		"alg none":             noneTok,
		"HS512":                sign(jwt.SigningMethodHS512, "k1", k1.Secret, claims()),
		"unknown kid":          sign(jwt.SigningMethodHS256, "k9", k1.Secret, claims()),
		"no kid":               sign(jwt.SigningMethodHS256, "", k1.Secret, claims()),
		"wrong key":            sign(jwt.SigningMethodHS256, "k1", k2.Secret, claims()),
		"no exp":               sign(jwt.SigningMethodHS256, "k1", k1.Secret, noExp),
		"issued in the future": sign(jwt.SigningMethodHS256, "k1", k1.Secret, future),
		"not yet valid":        sign(jwt.SigningMethodHS256, "k1", k1.Secret, nbf),
		"other issuer":         sign(jwt.SigningMethodHS256, "k1", k1.Secret, otherIss),
		"no akid (older pads)": sign(jwt.SigningMethodHS256, "k1", k1.Secret, noKeyID),
		"garbage":              "not.a.token",
		"too long":             valid + strings.Repeat("A", auth.MaxTokenLength),
		"tampered":             valid[:len(valid)-2] + "AA",
	}
	for name, tok := range tests {
		if _, err := toks.Verify(tok, auth.AudienceStorage); err != auth.ErrInvalidToken {
			t.Errorf("%s: Verify err = %v, want ErrInvalidToken", name, err)
		}
	}
	if _, err := toks.Verify(valid, auth.AudienceStorage); err != nil {
		t.Fatalf("the control token must verify: %v", err)
	}
}

func TestRotatedKeysStillVerify(t *testing.T) {
	t.Parallel()
	old, _ := auth.NewTokens("pads", []auth.Key{k1}, time.Now)
	tok, _ := old.Issue("acme", auth.AudienceStorage, time.Hour, acmeKey1)
	rotated, _ := auth.NewTokens("pads", []auth.Key{k2, k1}, time.Now)
	c, err := rotated.Verify(tok, auth.AudienceStorage)
	if err != nil {
		t.Fatalf("token signed by the previous key: %v", err)
	}
	if !rotated.IssuedUnder(c, [][32]byte{acmeKey1}) {
		t.Fatal("a token signed by the previous JWT key must still name its API key")
	}
	retired, _ := auth.NewTokens("pads", []auth.Key{k2}, time.Now)
	if _, err := retired.Verify(tok, auth.AudienceStorage); err != auth.ErrInvalidToken {
		t.Fatal("token signed by a removed key must fail")
	}
}

func TestATokenNamesItsAPIKeyWithoutRevealingIt(t *testing.T) {
	t.Parallel()
	toks, _ := auth.NewTokens("pads", []auth.Key{k1}, time.Now)
	first, _ := toks.Issue("acme", auth.AudienceStorage, time.Hour, acmeKey1)
	second, _ := toks.Issue("acme", auth.AudienceStorage, time.Hour, acmeKey2)
	c1, err1 := toks.Verify(first, auth.AudienceStorage)
	c2, err2 := toks.Verify(second, auth.AudienceStorage)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	both := [][32]byte{acmeKey1, acmeKey2}
	if !toks.IssuedUnder(c1, both) || !toks.IssuedUnder(c2, both) {
		t.Fatal("each token must be issued under one of the client's keys")
	}
	if toks.IssuedUnder(c1, [][32]byte{acmeKey2}) || !toks.IssuedUnder(c2, [][32]byte{acmeKey2}) {
		t.Fatal("with the first key removed, only the second key's token may stand")
	}
	if toks.IssuedUnder(c1, nil) {
		t.Fatal("a client with no key has no valid token")
	}
	var m jwt.MapClaims
	jwt.NewParser().ParseUnverified(first, &m)
	akid, _ := m["akid"].(string)
	if akid == "" || strings.Contains(first, hex.EncodeToString(acmeKey1[:])) || strings.Contains(first, base64.RawURLEncoding.EncodeToString(acmeKey1[:8])) {
		t.Fatalf("akid %q must name the key without its digest", akid)
	}
	// Keyed: another deployment's JWT key gives another name to the same
	// API key, so the name is no test of a guessed key.
	other, _ := auth.NewTokens("pads", []auth.Key{k2}, time.Now)
	third, _ := other.Issue("acme", auth.AudienceStorage, time.Hour, acmeKey1)
	var m3 jwt.MapClaims
	jwt.NewParser().ParseUnverified(third, &m3)
	if m3["akid"] == akid {
		t.Fatal("akid must be keyed with the JWT key")
	}
}

func TestRevocationsRefuseTokensIssuedBeforeTheClientsRevocation(t *testing.T) {
	t.Parallel()
	var nilRevocations *auth.Revocations
	if nilRevocations.Revoked(auth.Claims{Subject: "acme"}) {
		t.Fatal("no revocations revoke nothing")
	}
	now := t0
	toks, _ := auth.NewTokens("pads", []auth.Key{k1}, clockAt(&now))
	early, _ := toks.Issue("acme", auth.AudienceStorage, time.Hour, acmeKey1)
	other, _ := toks.Issue("globex", auth.AudienceStorage, time.Hour, acmeKey1)
	now = t0.Add(2 * time.Second)
	late, _ := toks.Issue("acme", auth.AudienceStorage, time.Hour, acmeKey1)

	stored := map[string]time.Time{}
	var failing bool
	load := func(context.Context) (map[string]time.Time, error) {
		if failing {
			return nil, errors.New("database down")
		}
		return maps.Clone(stored), nil
	}
	r := auth.NewRevocations(load, time.Hour, slog.New(slog.DiscardHandler))
	verify := func(tok string) auth.Claims {
		c, err := toks.Verify(tok, auth.AudienceStorage)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if err := r.Refresh(context.Background()); err != nil || r.Revoked(verify(early)) {
		t.Fatal("nothing is revoked yet")
	}
	stored["acme"] = t0.Add(time.Second)
	if r.Revoked(verify(early)) {
		t.Fatal("a revocation is seen at the next refresh, not before")
	}
	r.Refresh(context.Background())
	if !r.Revoked(verify(early)) || r.Revoked(verify(late)) || r.Revoked(verify(other)) {
		t.Fatal("only acme's tokens issued before its revocation are revoked")
	}
	failing = true
	if err := r.Refresh(context.Background()); err == nil || !r.Revoked(verify(early)) {
		t.Fatal("a failed read keeps the revocations read before")
	}
	r.Start()
	r.Stop()
}

func TestThrottleBlocksAPairAfterMaxFailures(t *testing.T) {
	t.Parallel()
	now := t0
	th := auth.NewThrottle(3, 15*time.Minute, clockAt(&now))
	for range 3 {
		if _, blocked := th.Blocked("acme", "192.0.2.1"); blocked {
			t.Fatal("blocked too early")
		}
		th.Fail("acme", "192.0.2.1")
		now = now.Add(time.Minute)
	}
	wait, blocked := th.Blocked("acme", "192.0.2.1")
	if !blocked || wait != 12*time.Minute {
		t.Fatalf("Blocked = %v, %v; want 12m, true", wait, blocked)
	}
	if _, blocked := th.Blocked("acme", "192.0.2.2"); blocked {
		t.Fatal("another address must not be locked out")
	}
	if _, blocked := th.Blocked("other", "192.0.2.1"); blocked {
		t.Fatal("another username must not be locked out")
	}
	now = now.Add(12 * time.Minute)
	if _, blocked := th.Blocked("acme", "192.0.2.1"); blocked {
		t.Fatal("still blocked after the window")
	}
	th.Fail("acme", "192.0.2.3")
	th.Succeed("acme", "192.0.2.3")
	th.Fail("acme", "192.0.2.3")
	th.Fail("acme", "192.0.2.3")
	if _, blocked := th.Blocked("acme", "192.0.2.3"); blocked {
		t.Fatal("a success must reset the count")
	}
}

// TestThrottleCannotBeFlushed floods the throttle with failures of junk
// usernames from many addresses, and from the blocked address itself: the
// blocked pair stays blocked for its window, and memory stays bounded.
func TestThrottleCannotBeFlushed(t *testing.T) {
	t.Parallel()
	now := t0
	th := auth.NewThrottle(10, 15*time.Minute, clockAt(&now))
	for range 10 {
		th.Fail("acme", "192.0.2.1")
	}
	for i := range 120_000 {
		// 50 junk failures per address: under each address's budget.
		addr := fmt.Sprintf("10.%d.%d.%d", i/50>>16&255, i/50>>8&255, i/50&255)
		th.Fail(fmt.Sprintf("junk-%d", i), addr)
		th.Fail(fmt.Sprintf("junk-%d", i), "192.0.2.1")
		if i%1000 == 0 {
			now = now.Add(time.Millisecond)
		}
	}
	if n := th.Entries(); n > 300_000 {
		t.Fatalf("%d entries: memory is not bounded", n)
	}
	if _, blocked := th.Blocked("acme", "192.0.2.1"); !blocked {
		t.Fatal("the flood unblocked the pair")
	}
	now = t0.Add(15 * time.Minute)
	if _, blocked := th.Blocked("acme", "192.0.2.1"); blocked {
		t.Fatal("still blocked after the window")
	}
}

// TestThrottleCountsIPv6ByItsSlash64: the addresses of one /64 share a count.
func TestThrottleCountsIPv6ByItsSlash64(t *testing.T) {
	t.Parallel()
	now := t0
	th := auth.NewThrottle(3, time.Minute, clockAt(&now))
	th.Fail("acme", "2001:db8:1:2::1")
	th.Fail("acme", "2001:db8:1:2::2")
	th.Fail("acme", "2001:db8:1:2:ffff::9")
	if _, blocked := th.Blocked("acme", "2001:db8:1:2::77"); !blocked {
		t.Fatal("another address of the same /64 is not blocked")
	}
	if _, blocked := th.Blocked("acme", "2001:db8:1:3::1"); blocked {
		t.Fatal("another /64 is blocked")
	}
}

// TestThrottleUsernameBudgetSlowsGuessesWithoutLockingOut: once a username's
// budget of failures across addresses is spent, an address that already
// failed is refused, while one that has not may still try (the right key
// keeps working); unknown usernames are treated the same.
func TestThrottleUsernameBudgetSlowsGuessesWithoutLockingOut(t *testing.T) {
	t.Parallel()
	for _, user := range []string{"acme", "no-such-client"} {
		now := t0
		th := auth.NewThrottle(3, 15*time.Minute, clockAt(&now))
		for i := range auth.UserBudget(3) {
			th.Fail(user, fmt.Sprintf("198.51.100.%d", i))
		}
		if _, blocked := th.Blocked(user, "198.51.100.1"); !blocked {
			t.Errorf("%s: an address with a failure may guess again after the budget is spent", user)
		}
		if _, blocked := th.Blocked(user, "203.0.113.9"); blocked {
			t.Errorf("%s: an address without failures is locked out", user)
		}
		th.Fail(user, "203.0.113.9")
		if _, blocked := th.Blocked(user, "203.0.113.9"); !blocked {
			t.Errorf("%s: a fresh address gets more than one guess once the budget is spent", user)
		}
		if _, blocked := th.Blocked("globex", "198.51.100.1"); blocked {
			t.Errorf("%s: another username is refused", user)
		}
	}
}

// TestThrottleAddressBudgetStopsAJunkFlood: one address failing with many
// usernames is refused for all of them once its budget is spent.
func TestThrottleAddressBudgetStopsAJunkFlood(t *testing.T) {
	t.Parallel()
	now := t0
	th := auth.NewThrottle(10, 15*time.Minute, clockAt(&now))
	for i := range auth.AddrBudget(10) {
		th.Fail(fmt.Sprintf("junk-%d", i), "192.0.2.7")
	}
	if _, blocked := th.Blocked("acme", "192.0.2.7"); !blocked {
		t.Fatal("an address past its budget may still guess")
	}
	if _, blocked := th.Blocked("acme", "192.0.2.8"); blocked {
		t.Fatal("another address is refused")
	}
}
