package auth

import (
	"crypto/sha256"
	"crypto/subtle"
)

// dummyDigest is compared against when the username is unknown, so that an
// unknown username costs the same work as a wrong key.
var dummyDigest = sha256.Sum256([]byte("pads: no such client"))

// MatchKey reports whether key's SHA-256 equals one of digests. It compares
// against every digest in constant time and returns only at the end; with no
// digests (an unknown client) it still does one comparison and fails.
func MatchKey(digests [][32]byte, key string) bool {
	return KeyIndex(digests, key) >= 0
}

// KeyIndex is MatchKey that also says which digest matched: its index, or
// -1 when none did. It does the same work whichever matches.
func KeyIndex(digests [][32]byte, key string) int {
	d := sha256.Sum256([]byte(key))
	if len(digests) == 0 {
		subtle.ConstantTimeCompare(d[:], dummyDigest[:])
		return -1
	}
	found := -1
	for i := range digests {
		found = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare(d[:], digests[i][:]), i, found)
	}
	return found
}
