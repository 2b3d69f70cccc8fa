package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The audiences: each API accepts only tokens issued for it.
const (
	AudienceStorage = "storage"
	AudienceSmile   = "smile"
	AudienceAdmin   = "admin"
)

// MaxTokenLength bounds a token before it is parsed.
const MaxTokenLength = 4096

// ErrInvalidToken is every reason a token is refused: a bad signature, an
// expired or not yet valid token, another audience, an unknown kid or alg.
// Callers learn no more than that, and neither does the client.
var ErrInvalidToken = errors.New("invalid token")

// Key is one HS256 signing key.
type Key struct {
	ID     string
	Secret []byte
}

// Tokens issues and verifies HS256 JWTs. The first key signs; all verify.
type Tokens struct {
	issuer  string
	keys    map[string][]byte
	signer  Key
	now     func() time.Time
	parsers map[string]*jwt.Parser

	// verified caches tokens that passed every check, by their exact text:
	// a client sends one token on many requests, and a hit costs a map
	// lookup instead of a parse and an HMAC. The validity window is
	// checked again on every hit; the keys cannot change while the process
	// runs, so a cached verdict stays true until the token expires.
	verified     sync.Map // string -> verifiedToken
	verifiedSize atomic.Int64
}

type verifiedToken struct {
	subject, audience string
	notBefore, expiry time.Time
}

// maxVerified bounds the cache; past it, the cache starts over.
const maxVerified = 50_000

// NewTokens returns a Tokens for issuer over keys, the first of which signs.
func NewTokens(issuer string, keys []Key, now func() time.Time) (*Tokens, error) {
	if len(keys) == 0 {
		return nil, errors.New("auth: no JWT key (give secrets.jwtKeys or let pads generate one)")
	}
	t := &Tokens{issuer: issuer, keys: map[string][]byte{}, signer: keys[0], now: now, parsers: map[string]*jwt.Parser{}}
	for _, k := range keys {
		if len(k.Secret) < 32 {
			return nil, fmt.Errorf("auth: JWT key %q is shorter than 32 bytes", k.ID)
		}
		t.keys[k.ID] = k.Secret
	}
	for _, aud := range []string{AudienceStorage, AudienceSmile, AudienceAdmin} {
		t.parsers[aud] = jwt.NewParser(
			jwt.WithValidMethods([]string{"HS256"}),
			jwt.WithAudience(aud),
			jwt.WithIssuer(issuer),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithTimeFunc(now),
		)
	}
	return t, nil
}

// Issue returns a token for subject on audience, valid for ttl.
func (t *Tokens) Issue(subject, audience string, ttl time.Duration) (string, error) {
	now := t.now().Truncate(time.Second)
	jti := make([]byte, 16)
	rand.Read(jti)
	claims := jwt.RegisteredClaims{
		Issuer:    t.issuer,
		Subject:   subject,
		Audience:  jwt.ClaimStrings{audience},
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		ID:        hex.EncodeToString(jti),
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["kid"] = t.signer.ID
	s, err := tok.SignedString(t.signer.Secret)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return s, nil
}

// Verify returns the subject of a valid token for audience, or
// ErrInvalidToken.
func (t *Tokens) Verify(raw, audience string) (string, error) {
	p, ok := t.parsers[audience]
	if !ok || len(raw) > MaxTokenLength {
		return "", ErrInvalidToken
	}
	if v, ok := t.verified.Load(raw); ok {
		vt := v.(verifiedToken)
		now := t.now()
		if vt.audience == audience && now.Before(vt.expiry) && !now.Before(vt.notBefore) {
			return vt.subject, nil
		}
	}
	var claims jwt.RegisteredClaims
	_, err := p.ParseWithClaims(raw, &claims, t.key)
	if err != nil || claims.Subject == "" {
		return "", ErrInvalidToken
	}
	vt := verifiedToken{subject: claims.Subject, audience: audience, expiry: claims.ExpiresAt.Time}
	if claims.NotBefore != nil {
		vt.notBefore = claims.NotBefore.Time
	}
	if claims.IssuedAt != nil && claims.IssuedAt.After(vt.notBefore) {
		vt.notBefore = claims.IssuedAt.Time
	}
	if t.verifiedSize.Add(1) > maxVerified {
		t.verified.Clear()
		t.verifiedSize.Store(1)
	}
	t.verified.Store(raw, vt)
	return claims.Subject, nil
}

func (t *Tokens) key(tok *jwt.Token) (any, error) {
	kid, _ := tok.Header["kid"].(string)
	k, ok := t.keys[kid]
	if !ok {
		return nil, ErrInvalidToken
	}
	return k, nil
}
