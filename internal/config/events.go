package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// The events a destination may get (destinations[].events).
const (
	// EventNonSensitive is the identity data of a completed form.
	EventNonSensitive = "non-sensitive"
	// EventSensitive is the health results of a completed assessment.
	EventSensitive = "sensitive"
	// EventResultsUpdated is new health results of a completed
	// assessment, when a later save changed them, sent after the results
	// they replace (docs/delivery.md#results-updated). Opt-in: no
	// destination gets it unless it lists it.
	EventResultsUpdated = "results-updated"
)

// DefaultFailingAfter is destinations.failingAfter's default.
const DefaultFailingAfter = 5

// MaxPerSecond bounds destinations[].maxPerSecond.
const MaxPerSecond = 10_000

// Gets reports whether the destination gets events of the type (one of the
// Event constants).
func (d *Destination) Gets(event string) bool { return slices.Contains(d.Events, event) }

// allowedEvents are the events a client's subscription lets its
// destinations get.
func allowedEvents(cl *Client) []string {
	if cl.Full() {
		return []string{EventNonSensitive, EventSensitive, EventResultsUpdated}
	}
	return []string{EventNonSensitive}
}

// defaultEvents are what a destination gets when it names none: what the
// subscription allows, never results-updated.
func defaultEvents(cl *Client) []string {
	if cl.Full() {
		return []string{EventNonSensitive, EventSensitive}
	}
	return []string{EventNonSensitive}
}

// validateDelivery checks what a destination gets and how fast.
func (c *Config) validateDelivery(p string, cl *Client, d *Destination) {
	allowed := allowedEvents(cl)
	if len(d.Events) == 0 {
		c.fail(p+".events", "must name at least one of %s", strings.Join(allowed, ", "))
	}
	for i, e := range d.Events {
		ep := fmt.Sprintf("%s.events[%d]", p, i)
		switch {
		case e != EventNonSensitive && e != EventSensitive && e != EventResultsUpdated:
			c.fail(ep, "%q is not an event: use non-sensitive, sensitive or results-updated", e)
		case !slices.Contains(allowed, e):
			c.fail(ep, "%q needs subscription: full (client %q subscribes to %s)", e, cl.ID, cl.Subscription)
		case slices.Contains(d.Events[:i], e):
			c.fail(ep, "%q is listed twice", e)
		}
	}
	if r := d.MaxPerSecond; r < 0 || r > MaxPerSecond {
		c.fail(p+".maxPerSecond", "must be between 0 (unbounded) and %d", MaxPerSecond)
	}
}

// PreviousSecret is a secret that still signs while a destination's
// secret is rotated, until Expires when it is set. In the file it is the
// secret alone ("whsec_...") or {secret, expires: <RFC 3339 time>}.
type PreviousSecret struct {
	Secret  string `yaml:"secret"`
	Expires string `yaml:"expires"`

	expires time.Time
}

// UnmarshalYAML reads the secret alone or the mapping.
func (s *PreviousSecret) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*s = PreviousSecret{Secret: n.Value}
		return nil
	}
	type plain PreviousSecret
	return n.Decode((*plain)(s))
}

// ExpiresAt is when the secret stops signing; zero: it does not expire.
func (s PreviousSecret) ExpiresAt() time.Time { return s.expires }

func (c *Config) validatePreviousSecret(p string, s *PreviousSecret) {
	s.expires = time.Time{}
	if _, err := WebhookSecret(s.Secret); err != nil {
		if s.Expires != "" {
			p += ".secret"
		}
		c.fail(p, "%v", err)
	}
	if s.Expires != "" {
		t, err := time.Parse(time.RFC3339, s.Expires)
		if err != nil {
			c.fail(p+".expires", "must be an RFC 3339 time, e.g. 2026-12-01T09:00:00Z")
		}
		s.expires = t
	}
}

// Host is where the destination sends, without path or secrets: a
// webhook's URL host, an SNS topic's name.
func (d *Destination) Host() string {
	if d.Type == "sns" {
		return d.TopicARN[strings.LastIndex(d.TopicARN, ":")+1:]
	}
	if u, err := url.Parse(d.URL); err == nil {
		return u.Host
	}
	return ""
}
