package console

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"time"
)

// maxSessions bounds the sessions one process keeps. Only an operator who
// knows an admin key can open one; past the bound the expired ones are
// dropped, then the ones closest to their end.
const maxSessions = 10_000

// session is one signed-in operator.
type session struct {
	admin   string // the admin's id in the config
	csrf    string // every form of the session carries it
	expires time.Time
	seen    time.Time // the session's last request, for the inactivity logoff
}

// sessions are kept in this process's memory, by the SHA-256 of their
// id: a lookup's timing says nothing about the ids held, and a memory
// dump holds no usable cookie.
type sessions struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[[32]byte]*session
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, m: map[[32]byte]*session{}}
}

// randomToken is 32 bytes from crypto/rand, URL-safe base64.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// open starts a session of admin for ttl and returns its id, for the
// cookie, and the session.
func (s *sessions) open(admin string, ttl time.Duration) (string, *session) {
	id := randomToken()
	now := s.now()
	sess := &session{admin: admin, csrf: randomToken(), expires: now.Add(ttl), seen: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= maxSessions {
		s.sweep()
	}
	s.m[sha256.Sum256([]byte(id))] = sess
	return id, sess
}

// get returns the live session of id and, when touch, marks it seen. A
// session that has seen no request for idle ends (an automatic logoff,
// HIPAA 164.312(a)(2)(iii)), as does one past its lifetime. A page's own
// refresh does not touch: an open overview must not keep its session
// alive.
func (s *sessions) get(id string, idle time.Duration, touch bool) (*session, bool) {
	if id == "" {
		return nil, false
	}
	key := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.m[key]
	if !ok {
		return nil, false
	}
	now := s.now()
	if !now.Before(sess.expires) || now.Sub(sess.seen) >= idle {
		delete(s.m, key)
		return nil, false
	}
	if touch {
		sess.seen = now
	}
	return sess, true
}

// end ends the session of id, if any.
func (s *sessions) end(id string) {
	s.mu.Lock()
	delete(s.m, sha256.Sum256([]byte(id)))
	s.mu.Unlock()
}

// sweep drops expired sessions, then, if still full, those closest to
// their end. The caller holds mu.
func (s *sessions) sweep() {
	now := s.now()
	for k, sess := range s.m {
		if !now.Before(sess.expires) {
			delete(s.m, k)
		}
	}
	for len(s.m) >= maxSessions*9/10 {
		var first [32]byte
		var at time.Time
		for k, sess := range s.m {
			if at.IsZero() || sess.expires.Before(at) {
				first, at = k, sess.expires
			}
		}
		delete(s.m, first)
	}
}

// sameToken compares two tokens in constant time.
func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
