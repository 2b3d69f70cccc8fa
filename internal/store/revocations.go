package store

import (
	"context"
	"time"
)

// Revocations keeps, per client, the time before which the client's
// tokens are revoked (pads tokens revoke). Serving processes read them all
// every few seconds; a revocation is durable once RevokeTokens returns.
type Revocations interface {
	// RevokeTokens records that the tokens of clientID issued before
	// before are revoked. A revocation never moves back: a time earlier
	// than the one recorded changes nothing.
	RevokeTokens(ctx context.Context, clientID string, before time.Time) error
	// TokenRevocations returns the revocation time of every client that
	// has one.
	TokenRevocations(ctx context.Context) (map[string]time.Time, error)
}
