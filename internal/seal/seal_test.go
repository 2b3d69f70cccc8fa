package seal_test

import (
	"bytes"
	"errors"
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
