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
	d := sha256.Sum256([]byte(key))
	match := 0
	if len(digests) == 0 {
		subtle.ConstantTimeCompare(d[:], dummyDigest[:])
		return false
	}
	for i := range digests {
		match |= subtle.ConstantTimeCompare(d[:], digests[i][:])
	}
	return match == 1
}
