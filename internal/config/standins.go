package config

import (
	"regexp"
	"strings"
)

// sendingRE matches the paths of the values only sending needs: a
// destination's auth and headers, an operator endpoint's signing secret.
var sendingRE = regexp.MustCompile(`^(clients\[\d+\]\.destinations\[\d+\]\.(auth|headers)\.|operatorEvents\[\d+\]\.hmac\.)`)

func sendingSecret(path string) bool { return sendingRE.MatchString(path) }

// standInSecret is the stand-in of an unset signing secret: well formed,
// so the config validates, and never used to sign (StandIns).
const standInSecret = "whsec_c3RhbmQtaW4tbmV2ZXItc2lnbnMtYW55dGhpbmc="

// standIn is the value an unset secret at path takes under LoadForReading.
func standIn(path string) string {
	if strings.HasSuffix(path, ".secret") || strings.Contains(path, ".previousSecrets[") {
		return standInSecret
	}
	return "stand-in"
}

// StandIns returns the paths whose values are stand-ins for secrets that
// were not in the environment (LoadForReading); nil for a config loaded
// by Load. Nothing may be sent under such a config to what they belong to.
func (c *Config) StandIns() []string { return c.standIns }

// HasStandIn reports whether a value under prefix (a path such as
// "operatorEvents" or "clients[0].destinations[1]") is a stand-in.
func (c *Config) HasStandIn(prefix string) bool {
	for _, p := range c.standIns {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
