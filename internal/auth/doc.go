// Package auth checks client API keys, issues and verifies the JWTs that
// stand for them, and slows down repeated failed logins.
package auth
