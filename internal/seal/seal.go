// Package seal encrypts record data at rest and derives the keyed hashes
// (blind indexes) that let the store look a record up by email without
// keeping the email in clear.
//
// Sealed data is self-describing: a format byte, the id of the key that
// sealed it, a random nonce and the AES-256-GCM ciphertext. The first key of
// a Keyring seals; every key opens, so keys can be rotated by putting a new
// key first and keeping the old ones until every record has been rewritten.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"sync"
)

const (
	formatV1  = 1
	keySize   = 32
	maxKeyID  = 64
	indexInfo = "pads email index v1"
	refInfo   = "pads audit reference v1"
	refSize   = 16 // bytes of the HMAC a reference keeps: 128 bits
)

// ErrOpen is returned for sealed data that cannot be opened: unknown key id,
// a wrong associated data or a modified ciphertext. It never says which.
var ErrOpen = errors.New("seal: cannot open sealed data")

// Key is one data-encryption key with the id that names it in sealed data.
type Key struct {
	ID     string
	Secret []byte
}

type entry struct {
	id   string
	aead cipher.AEAD
	// index holds HMAC-SHA256 hashes keyed with the blind index's key,
	// derived from the secret. Reset, a hash starts again from its keyed
	// state: a fresh one would hash the key's pads again for every save.
	index *sync.Pool
	// ref keys the audit log's references (see Ref), apart from the
	// blind index: a reference never matches an index.
	ref []byte
}

// Keyring seals with its first key and opens with any of its keys.
type Keyring struct {
	keys []entry
	byID map[string]*entry
}

// NewKeyring returns a keyring over keys; the first one seals.
func NewKeyring(keys []Key) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("seal: no encryption key (give secrets.encryptionKeys or let pads generate one)")
	}
	kr := &Keyring{keys: make([]entry, len(keys)), byID: make(map[string]*entry, len(keys))}
	for i, k := range keys {
		if k.ID == "" || len(k.ID) > maxKeyID {
			return nil, fmt.Errorf("seal: key %d: id must be 1 to %d characters", i, maxKeyID)
		}
		if len(k.Secret) != keySize {
			return nil, fmt.Errorf("seal: key %q: must be %d bytes, got %d", k.ID, keySize, len(k.Secret))
		}
		if _, dup := kr.byID[k.ID]; dup {
			return nil, fmt.Errorf("seal: key id %q given twice", k.ID)
		}
		block, err := aes.NewCipher(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("seal: key %q: %w", k.ID, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("seal: key %q: %w", k.ID, err)
		}
		index, err := hkdf.Key(sha256.New, k.Secret, nil, indexInfo, keySize)
		if err != nil {
			return nil, fmt.Errorf("seal: key %q: %w", k.ID, err)
		}
		ref, err := hkdf.Key(sha256.New, k.Secret, nil, refInfo, keySize)
		if err != nil {
			return nil, fmt.Errorf("seal: key %q: %w", k.ID, err)
		}
		kr.keys[i] = entry{id: k.ID, aead: aead, index: &sync.Pool{New: func() any { return hmac.New(sha256.New, index) }}, ref: ref}
		kr.byID[k.ID] = &kr.keys[i]
	}
	return kr, nil
}

// Seal encrypts plaintext with the primary key, bound to ad: the sealed data
// opens only with the same associated data.
func (kr *Keyring) Seal(plaintext, ad []byte) []byte {
	k := &kr.keys[0]
	ns := k.aead.NonceSize()
	out := make([]byte, 0, 2+len(k.id)+ns+len(plaintext)+k.aead.Overhead())
	out = append(out, formatV1, byte(len(k.id)))
	out = append(out, k.id...)
	nonce := out[len(out) : len(out)+ns]
	rand.Read(nonce) // never fails (crypto/rand contract since Go 1.24)
	out = out[:len(out)+ns]
	return k.aead.Seal(out, nonce, plaintext, ad)
}

// Open decrypts data sealed by any key of the ring with the same ad.
func (kr *Keyring) Open(sealed, ad []byte) ([]byte, error) {
	k, rest, err := kr.split(sealed)
	if err != nil {
		return nil, err
	}
	ns := k.aead.NonceSize()
	if len(rest) < ns+k.aead.Overhead() {
		return nil, ErrOpen
	}
	pt, err := k.aead.Open(nil, rest[:ns], rest[ns:], ad)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}

// KeyID returns the id of the key that sealed data, or "" if unreadable.
func (kr *Keyring) KeyID(sealed []byte) string {
	if len(sealed) < 2 || sealed[0] != formatV1 || len(sealed) < 2+int(sealed[1]) {
		return ""
	}
	return string(sealed[2 : 2+int(sealed[1])])
}

// PrimaryID is the id of the key that seals.
func (kr *Keyring) PrimaryID() string { return kr.keys[0].id }

func (kr *Keyring) split(sealed []byte) (*entry, []byte, error) {
	if len(sealed) < 2 || sealed[0] != formatV1 {
		return nil, nil, ErrOpen
	}
	n := int(sealed[1])
	if len(sealed) < 2+n {
		return nil, nil, ErrOpen
	}
	k, ok := kr.byID[string(sealed[2:2+n])]
	if !ok {
		return nil, nil, ErrOpen
	}
	return k, sealed[2+n:], nil
}

// Index returns the blind index of value under the primary key: the value a
// record stores so it can be found by that value later.
func (kr *Keyring) Index(value string) []byte {
	return kr.keys[0].blindIndex(value)
}

// Indexes returns the blind index of value under every key, primary first: a
// lookup matches records indexed before a key rotation too.
func (kr *Keyring) Indexes(value string) [][]byte {
	out := make([][]byte, len(kr.keys))
	for i := range kr.keys {
		out[i] = kr.keys[i].blindIndex(value)
	}
	return out
}

func (e *entry) blindIndex(value string) []byte {
	m := e.index.Get().(hash.Hash)
	m.Reset()
	m.Write([]byte(value))
	sum := m.Sum(nil)
	e.index.Put(m)
	return sum
}

// Ref returns the audit log's reference to value of kind under client
// (kind "patient" and a patient uuid, or "email" and a normalized email):
// "<kind>:<key id>:<22 characters>", the first 128 bits of
// HMAC-SHA256(HKDF-SHA256(the first key's secret, "pads audit reference
// v1"), kind NUL client NUL value), base64url. Without the key it reveals
// nothing and cannot be reversed; with it, an operator asked about one
// patient can recompute it (Refs) and find the entries that name them.
func (kr *Keyring) Ref(kind, clientID, value string) string {
	return kr.keys[0].reference(kind, clientID, value)
}

// Refs returns the reference of value under every key, the first key's
// first: entries written before a key rotation name a patient under the
// key first then.
func (kr *Keyring) Refs(kind, clientID, value string) []string {
	out := make([]string, len(kr.keys))
	for i := range kr.keys {
		out[i] = kr.keys[i].reference(kind, clientID, value)
	}
	return out
}

func (e *entry) reference(kind, clientID, value string) string {
	m := hmac.New(sha256.New, e.ref)
	m.Write([]byte(kind + "\x00" + clientID + "\x00" + value))
	return kind + ":" + e.id + ":" + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:refSize])
}
