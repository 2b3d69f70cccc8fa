package config

import "fmt"

// MinKeyChars is the shortest configured API key that holds 128 bits of
// randomness in base64 (22 characters); a key written only in hexadecimal
// digits needs MinHexKeyChars.
const (
	MinKeyChars    = 22
	MinHexKeyChars = 32
)

// Warnings lists what in the config loads but weakens pads: API keys too
// short to resist guessing (fewer than 128 bits' worth of characters). A
// sha256 digest cannot be judged and draws none. Each warning names the
// line, as errors do; none contains a key.
func (c *Config) Warnings() []string {
	var out []string
	check := func(p string, keys []APIKey) {
		for j, k := range keys {
			if k.Key != "" && shortKey(k.Key) {
				out = append(out, c.errAt(fmt.Sprintf("%s.apiKeys[%d]", p, j),
					"the key is shorter than 128 bits' worth of characters (%d base64 or %d hexadecimal); make one with `pads keys api`",
					MinKeyChars, MinHexKeyChars).Error())
			}
		}
	}
	for i := range c.Clients {
		check(fmt.Sprintf("clients[%d]", i), c.Clients[i].APIKeys)
	}
	for i := range c.Admins {
		check(fmt.Sprintf("admins[%d]", i), c.Admins[i].APIKeys)
	}
	return out
}

func shortKey(k string) bool {
	if len(k) < MinKeyChars {
		return true
	}
	for _, r := range k {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return len(k) < MinHexKeyChars
}
