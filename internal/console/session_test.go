package console

import (
	"testing"
	"time"
)

func TestSessionsExpireEndAndKeepNoIDInClear(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s := newSessions(func() time.Time { return now })
	id, sess := s.open("ops", time.Hour)
	other, _ := s.open("ops", time.Hour)
	if len(id) != 43 || id == other || sess.csrf == "" || sess.csrf == id {
		t.Fatalf("ids %q %q, csrf %q: want distinct 32-byte random tokens", id, other, sess.csrf)
	}
	for key := range s.m {
		if string(key[:]) == id {
			t.Fatal("a session is kept by its id in clear")
		}
	}
	if got, ok := s.get(id, 2*time.Hour, true); !ok || got.admin != "ops" {
		t.Fatalf("get: %+v %v", got, ok)
	}
	if _, ok := s.get(id+"x", 2*time.Hour, true); ok {
		t.Fatal("another id opened the session")
	}
	s.end(other)
	if _, ok := s.get(other, 2*time.Hour, true); ok {
		t.Fatal("an ended session lives on")
	}
	now = now.Add(time.Hour)
	if _, ok := s.get(id, 2*time.Hour, true); ok {
		t.Fatal("a session outlived its lifetime")
	}
	if len(s.m) != 0 {
		t.Fatalf("%d sessions kept after they ended", len(s.m))
	}
}

// TestSessionsEndAfterInactivity: a session that sees no request for the
// inactivity timeout ends; each request starts the timeout again.
func TestSessionsEndAfterInactivity(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s := newSessions(func() time.Time { return now })
	id, _ := s.open("ops", time.Hour)
	for range 3 {
		now = now.Add(14 * time.Minute)
		if _, ok := s.get(id, 15*time.Minute, true); !ok {
			t.Fatal("an active session was logged off")
		}
	}
	now = now.Add(15 * time.Minute)
	if _, ok := s.get(id, 15*time.Minute, true); ok {
		t.Fatal("a session idle for the whole timeout lives on")
	}
	if _, ok := s.get(id, time.Hour, true); ok {
		t.Fatal("a session logged off came back")
	}
}

// TestAPageRefreshDoesNotKeepASessionAlive: the overview's own refreshes
// read the session without touching it, so an open page is logged off
// like an unattended one.
func TestAPageRefreshDoesNotKeepASessionAlive(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s := newSessions(func() time.Time { return now })
	id, _ := s.open("ops", time.Hour)
	for range 29 {
		now = now.Add(30 * time.Second)
		if _, ok := s.get(id, 15*time.Minute, false); !ok {
			t.Fatal("a refresh within the timeout found no session")
		}
	}
	now = now.Add(30 * time.Second) // 15 minutes since the operator's last request
	if _, ok := s.get(id, 15*time.Minute, false); ok {
		t.Fatal("refreshes kept an idle session alive")
	}
}

func TestOverviewRefreshesEveryHalfMinuteOrJustPastTheLogoff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		left time.Duration
		want string
	}{
		{15 * time.Minute, "30;url=/admin/?refresh=auto"},
		{29 * time.Second, "30;url=/admin/?refresh=auto"},
		{10 * time.Second, "11;url=/admin/?refresh=auto"},
		{-time.Minute, "1;url=/admin/?refresh=auto"},
	} {
		if got := refreshContent(tt.left); got != tt.want {
			t.Errorf("%v left: %q, want %q", tt.left, got, tt.want)
		}
	}
}

func TestSessionsStayBounded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s := newSessions(func() time.Time { return now })
	for i := range maxSessions + 10 {
		s.open("ops", time.Duration(i+1)*time.Second)
	}
	if len(s.m) > maxSessions {
		t.Fatalf("%d sessions kept, at most %d", len(s.m), maxSessions)
	}
}

func TestTokensCompareWhole(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		same bool
	}{{"abc", "abc", true}, {"abc", "abd", false}, {"abc", "ab", false}, {"", "", false}, {"", "abc", false}} {
		if sameToken(c.a, c.b) != c.same {
			t.Errorf("sameToken(%q, %q) = %v", c.a, c.b, !c.same)
		}
	}
}

func TestSignInReturnsOnlyToConsolePages(t *testing.T) {
	t.Parallel()
	for next, want := range map[string]string{
		"":                               "/admin/",
		"/admin/console/deliveries?x=1":  "/admin/console/deliveries?x=1",
		"https://evil.example/admin/":    "/admin/",
		"//evil.example/admin/":          "/admin/",
		"/admin\\@evil.example":          "/admin/",
		"/metrics":                       "/admin/",
		"/admin/console/audit\r\nX-A: b": "/admin/",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}
