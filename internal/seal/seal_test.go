package seal_test

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/pads-dev/pads/internal/seal"
)

func key(id string, b byte) seal.Key {
	return seal.Key{ID: id, Secret: bytes.Repeat([]byte{b}, 32)}
}

func TestSealOpensOnlyWithSameAssociatedData(t *testing.T) {
	t.Parallel()
	kr, err := seal.NewKeyring([]seal.Key{key("e1", 1)})
	if err != nil {
		t.Fatal(err)
	}
	pt := []byte(`{"heartRateBpm":72}`)
	sealed := kr.Seal(pt, []byte("acme/uuid-1/faceScan"))
	if bytes.Contains(sealed, pt[2:14]) {
		t.Fatal("sealed data contains the plaintext")
	}
	got, err := kr.Open(sealed, []byte("acme/uuid-1/faceScan"))
	if err != nil || !bytes.Equal(got, pt) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := kr.Open(sealed, []byte("other/uuid-1/faceScan")); !errors.Is(err, seal.ErrOpen) {
		t.Fatalf("Open with other ad: err = %v, want ErrOpen", err)
	}
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	if _, err := kr.Open(tampered, []byte("acme/uuid-1/faceScan")); !errors.Is(err, seal.ErrOpen) {
		t.Fatalf("Open tampered: err = %v, want ErrOpen", err)
	}
	for _, bad := range [][]byte{nil, {1}, {1, 5, 'e'}, {2, 2, 'e', '1'}} {
		if _, err := kr.Open(bad, nil); !errors.Is(err, seal.ErrOpen) {
			t.Errorf("Open(%v): err = %v, want ErrOpen", bad, err)
		}
	}
}

func TestRotationOpensOldDataAndSealsWithNewKey(t *testing.T) {
	t.Parallel()
	old, _ := seal.NewKeyring([]seal.Key{key("e1", 1)})
	sealed := old.Seal([]byte("x"), nil)

	rotated, err := seal.NewKeyring([]seal.Key{key("e2", 2), key("e1", 1)})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rotated.Open(sealed, nil); err != nil || string(got) != "x" {
		t.Fatalf("Open old data after rotation = %q, %v", got, err)
	}
	if id := rotated.KeyID(rotated.Seal([]byte("x"), nil)); id != "e2" {
		t.Fatalf("sealed with %q, want e2", id)
	}
	idx := rotated.Indexes("ada@example.com")
	if len(idx) != 2 || !bytes.Equal(idx[1], old.Index("ada@example.com")) || !bytes.Equal(idx[0], rotated.Index("ada@example.com")) {
		t.Fatal("Indexes must hold the primary index first and every older key's index after")
	}
	if bytes.Equal(idx[0], idx[1]) {
		t.Fatal("two keys gave the same blind index")
	}
}

func TestNewKeyringRejectsBadKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		keys []seal.Key
	}{
		{"none", nil},
		{"short secret", []seal.Key{{ID: "e1", Secret: []byte("short")}}},
		{"empty id", []seal.Key{{ID: "", Secret: make([]byte, 32)}}},
		{"duplicate id", []seal.Key{key("e1", 1), key("e1", 2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := seal.NewKeyring(tt.keys); err == nil {
				t.Fatal("NewKeyring accepted bad keys")
			}
		})
	}
}

// The blind index is stored with every record: it must stay
// HMAC-SHA256(HKDF-SHA256(secret, "pads email index v1"), value), however
// the hashes behind it are reused, or records stop being found by email.
func TestIndexIsTheKeyedHashEveryTime(t *testing.T) {
	t.Parallel()
	k := key("e1", 7)
	kr, err := seal.NewKeyring([]seal.Key{k})
	if err != nil {
		t.Fatal(err)
	}
	indexKey, err := hkdf.Key(sha256.New, k.Secret, nil, "pads email index v1", 32)
	if err != nil {
		t.Fatal(err)
	}
	want := func(v string) []byte {
		m := hmac.New(sha256.New, indexKey)
		m.Write([]byte(v))
		return m.Sum(nil)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				v := fmt.Sprintf("patient-%d-%d@example.com", g, i%7)
				if got := kr.Index(v); !bytes.Equal(got, want(v)) {
					t.Errorf("Index(%q) = %x, want %x", v, got, want(v))
					return
				}
			}
		})
	}
	wg.Wait()
}

// The audit log's references must stay the documented keyed hash, differ
// by kind, client and key, and never equal the blind index.
func TestRefIsTheDocumentedKeyedHash(t *testing.T) {
	t.Parallel()
	k := key("e1", 9)
	kr, err := seal.NewKeyring([]seal.Key{k, key("e0", 3)})
	if err != nil {
		t.Fatal(err)
	}
	refKey, err := hkdf.Key(sha256.New, k.Secret, nil, "pads audit reference v1", 32)
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, refKey)
	m.Write([]byte("patient\x00acme\x005f0c6a4e-3b1d-4d6e-9a52-2f7c1e0b9d41"))
	want := "patient:e1:" + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
	if got := kr.Ref("patient", "acme", "5f0c6a4e-3b1d-4d6e-9a52-2f7c1e0b9d41"); got != want {
		t.Fatalf("Ref = %q, want %q", got, want)
	}
	refs := kr.Refs("patient", "acme", "5f0c6a4e-3b1d-4d6e-9a52-2f7c1e0b9d41")
	if len(refs) != 2 || refs[0] != want || !strings.HasPrefix(refs[1], "patient:e0:") {
		t.Fatalf("Refs = %q", refs)
	}
	others := []string{
		kr.Ref("email", "acme", "5f0c6a4e-3b1d-4d6e-9a52-2f7c1e0b9d41"),
		kr.Ref("patient", "globex", "5f0c6a4e-3b1d-4d6e-9a52-2f7c1e0b9d41"),
		refs[1],
	}
	for _, o := range others {
		if strings.TrimPrefix(strings.TrimPrefix(o, "email:"), "patient:")[3:] == want[len("patient:e1:"):] {
			t.Errorf("%q shares its hash with %q", o, want)
		}
	}
	if strings.Contains(want, base64.RawURLEncoding.EncodeToString(kr.Index("5f0c6a4e-3b1d-4d6e-9a52-2f7c1e0b9d41")[:16])) {
		t.Error("a reference equals the blind index")
	}
}
