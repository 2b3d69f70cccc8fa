package config

import (
	"fmt"
	"net/url"
)

// OperatorEndpoint is a webhook that receives operator events (a
// destination failing, recovered, paused or resumed, a delivery failed for
// good): signed the Standard Webhooks way like every delivery, never with
// patient data.
type OperatorEndpoint struct {
	ID   string    `yaml:"id"`
	URL  string    `yaml:"url"`
	HMAC *HMACAuth `yaml:"hmac"`
	// Timeout bounds one try; default and maximum 30s.
	Timeout Duration `yaml:"timeout"`
}

func (c *Config) validateOperatorEvents() {
	if n := c.Destinations.FailingAfter; n < 1 || n > 1000 {
		c.fail("destinations.failingAfter", "must be between 1 and 1000")
	}
	seen := map[string]bool{}
	for i := range c.OperatorEvents {
		o := &c.OperatorEvents[i]
		p := fmt.Sprintf("operatorEvents[%d]", i)
		if !idRE.MatchString(o.ID) {
			c.fail(p+".id", "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")
		} else if seen[o.ID] {
			c.fail(p+".id", "operator endpoint %q is defined twice", o.ID)
		}
		seen[o.ID] = true
		u, err := url.Parse(o.URL)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil:
			c.fail(p+".url", "must be an absolute https URL without credentials")
		case u.Scheme == "http" && !c.Destinations.AllowPlainHTTP:
			c.fail(p+".url", "must use https (set destinations.allowPlainHTTP only for development)")
		}
		if o.HMAC == nil || o.HMAC.Secret == "" {
			c.fail(p+".hmac.secret", "is required: operator events are signed like every delivery")
		} else {
			c.validateHMAC(p, o.HMAC)
		}
		if t := o.Timeout.D(); t <= 0 || t > MaxTimeout {
			c.fail(p+".timeout", "must be more than 0 and at most %s", MaxTimeout)
		}
	}
}

// validateHMAC checks a signing secret and its previous ones; p is the
// path of the hmac key's parent.
func (c *Config) validateHMAC(p string, h *HMACAuth) {
	if _, err := WebhookSecret(h.Secret); err != nil {
		c.fail(p+".hmac.secret", "%v", err)
	}
	for i := range h.PreviousSecrets {
		c.validatePreviousSecret(fmt.Sprintf("%s.hmac.previousSecrets[%d]", p, i), &h.PreviousSecrets[i])
	}
}
