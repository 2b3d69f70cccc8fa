package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
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

// ErrTokenExpired is an ErrInvalidToken whose signature is good and whose
// time ran out: the one reason worth telling the client, who holds the
// token and can read its exp anyway, because its fix differs
// (authenticate again).
var ErrTokenExpired = fmt.Errorf("%w: expired", ErrInvalidToken)

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
	claims            Claims
	audience          string
	notBefore, expiry time.Time
}

// Claims are what a valid token says about itself.
type Claims struct {
	// Subject is the client (or admin) the token was issued to.
	Subject string
	// IssuedAt is when, to the second.
	IssuedAt time.Time
	// signer is the id of the JWT key that signed the token, and apiKey
	// the token's "akid" claim: which of the subject's API keys it was
	// issued under (see IssuedUnder).
	signer, apiKey string
}

// claims is a token's payload: the registered claims and "akid", a keyed
// hash of the API key the token was issued under. The hash names the key
// without revealing it: it is keyed with the JWT signing key, so a token
// seen by a third party gives no way to test guesses of the API key.
type claims struct {
	jwt.RegisteredClaims
	APIKey string `json:"akid"`
}

// apiKeyID is the "akid" of tokens signed with secret and issued under the
// API key whose SHA-256 is digest.
func apiKeyID(secret []byte, digest [32]byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("pads api key id\x00"))
	mac.Write(digest[:])
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12])
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

// Issue returns a token for subject on audience, valid for ttl, issued
// under the API key whose SHA-256 is apiKey.
func (t *Tokens) Issue(subject, audience string, ttl time.Duration, apiKey [32]byte) (string, error) {
	now := t.now().Truncate(time.Second)
	jti := make([]byte, 16)
	rand.Read(jti)
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    t.issuer,
			Subject:   subject,
			Audience:  jwt.ClaimStrings{audience},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			ID:        hex.EncodeToString(jti),
		},
		APIKey: apiKeyID(t.signer.Secret, apiKey),
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	tok.Header["kid"] = t.signer.ID
	s, err := tok.SignedString(t.signer.Secret)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return s, nil
}

// Verify returns the claims of a valid token for audience, or
// ErrInvalidToken. A token without "akid" (issued before pads named the
// API key in its tokens) is invalid.
func (t *Tokens) Verify(raw, audience string) (Claims, error) {
	p, ok := t.parsers[audience]
	if !ok || len(raw) > MaxTokenLength {
		return Claims{}, ErrInvalidToken
	}
	if v, ok := t.verified.Load(raw); ok {
		vt := v.(verifiedToken)
		now := t.now()
		if vt.audience == audience && now.Before(vt.expiry) && !now.Before(vt.notBefore) {
			return vt.claims, nil
		}
	}
	var c claims
	tok, err := p.ParseWithClaims(raw, &c, t.key)
	if errors.Is(err, jwt.ErrTokenExpired) && !errors.Is(err, jwt.ErrTokenSignatureInvalid) {
		// jwt checks the signature before the claims: this one is ours.
		return Claims{}, ErrTokenExpired
	}
	if err != nil || c.Subject == "" || c.APIKey == "" || c.IssuedAt == nil {
		return Claims{}, ErrInvalidToken
	}
	kid, _ := tok.Header["kid"].(string)
	vt := verifiedToken{
		claims:   Claims{Subject: c.Subject, IssuedAt: c.IssuedAt.Time, signer: kid, apiKey: c.APIKey},
		audience: audience,
		expiry:   c.ExpiresAt.Time,
	}
	if c.NotBefore != nil {
		vt.notBefore = c.NotBefore.Time
	}
	if c.IssuedAt.After(vt.notBefore) {
		vt.notBefore = c.IssuedAt.Time
	}
	if t.verifiedSize.Add(1) > maxVerified {
		t.verified.Clear()
		t.verifiedSize.Store(1)
	}
	t.verified.Store(raw, vt)
	return vt.claims, nil
}

// IssuedUnder reports whether the token of c was issued under one of the
// API keys whose SHA-256 digests are given: the subject's keys in the
// config in force. A token of a key removed or rotated out is not.
func (t *Tokens) IssuedUnder(c Claims, digests [][32]byte) bool {
	secret, ok := t.keys[c.signer]
	if !ok {
		return false
	}
	found := false
	for _, d := range digests {
		if hmac.Equal([]byte(apiKeyID(secret, d)), []byte(c.apiKey)) {
			found = true
		}
	}
	return found
}

func (t *Tokens) key(tok *jwt.Token) (any, error) {
	kid, _ := tok.Header["kid"].(string)
	k, ok := t.keys[kid]
	if !ok {
		return nil, ErrInvalidToken
	}
	return k, nil
}
