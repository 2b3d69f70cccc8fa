package deliver_test

import (
	"encoding/base64"
	"reflect"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// FromConfig resolves each destination of a config to the settings an
// attempt sends with: type, format, timeout, retry, the auth as written,
// the HMAC keys decoded (current first), ordering and the outbound policy.
func TestFromConfig(t *testing.T) {
	t.Parallel()
	current, previous := make([]byte, 32), make([]byte, 32)
	previous[0] = 1
	whsec := func(b []byte) string { return "whsec_" + base64.StdEncoding.EncodeToString(b) }
	cfg, err := config.Parse([]byte(`
destinations: {allowPlainHTTP: true}
clients:
  - id: acme
    apiKeys: [{key: "0123456789abcdef0123"}]
    funnels: [{id: acme-main}]
    destinations:
      - id: hook
        type: webhook
        url: http://hooks.example.com/pads
        format: fhir-r4
        timeout: 7s
        retry: {attempts: 5, initialDelay: 2s, multiplier: 3}
        auth:
          oauth2: {tokenURL: "https://auth.example.com/token", clientID: pads, clientSecret: s, scopes: [results]}
          hmac: {secret: "`+whsec(current)+`", previousSecrets: ["`+whsec(previous)+`"]}
      - id: keyed
        type: webhook
        url: https://keyed.example.com/pads
        ordering: none
        auth: {apiKey: {header: X-Key, value: k}}
      - id: topic
        type: sns
        topicArn: arn:aws:sns:eu-west-1:123456789012:results
        region: eu-west-1
`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	table := deliver.FromConfig(cfg)
	ref := func(id string) store.DestinationRef { return store.DestinationRef{ClientID: "acme", ID: id} }
	hook, ok := table.Resolve(ref("hook"))
	if !ok {
		t.Fatal("hook does not resolve")
	}
	want := deliver.Retry{Attempts: 5, InitialDelay: 2 * time.Second, Multiplier: 3}
	if hook.Type != "webhook" || hook.Format != deliver.FormatFHIR || hook.Timeout != 7*time.Second || hook.Retry != want ||
		hook.URL != "http://hooks.example.com/pads" || !hook.AllowPlainHTTP || hook.AllowPrivateNetworks {
		t.Errorf("hook resolved to %+v", hook)
	}
	if hook.Auth.OAuth2 == nil || hook.Auth.OAuth2.ClientID != "pads" || !reflect.DeepEqual(hook.Auth.OAuth2.Scopes, []string{"results"}) {
		t.Errorf("hook's auth %+v", hook.Auth)
	}
	if !reflect.DeepEqual(hook.SigningKeys(time.Now()), [][]byte{current, previous}) {
		t.Errorf("hook's HMAC keys %x, want the current then the previous", hook.HMACKeys)
	}
	if keyed, _ := table.Resolve(ref("keyed")); keyed.Auth.APIKey == nil || keyed.Auth.APIKey.Header != "X-Key" || keyed.HMACKeys != nil {
		t.Errorf("keyed resolved to %+v", keyed)
	}
	if topic, _ := table.Resolve(ref("topic")); topic.Type != "sns" || topic.TopicARN == "" || topic.Region != "eu-west-1" {
		t.Errorf("topic resolved to %+v", topic)
	}
	if _, ok := table.Resolve(ref("gone")); ok {
		t.Error("a destination the config lacks resolved")
	}
	if got := table.Unordered(); !reflect.DeepEqual(got, []store.DestinationRef{ref("keyed")}) {
		t.Errorf("unordered %v, want keyed only", got)
	}
	if n := len(table.All()); n != 3 {
		t.Errorf("%d destinations, want 3", n)
	}
}

// reloadingSender keeps the destinations it was last told are in force.
type reloadingSender struct {
	deliver.Sender
	inForce []deliver.Destination
}

func (s *reloadingSender) Reload(dests []deliver.Destination) { s.inForce = dests }

// A config load puts its destinations in force for the next attempt, and
// tells the senders that keep something per destination.
func TestDestinationsLoad(t *testing.T) {
	t.Parallel()
	parse := func(url string) *config.Config {
		cfg, err := config.Parse([]byte(`
clients:
  - id: acme
    apiKeys: [{key: "0123456789abcdef0123"}]
    funnels: [{id: acme-main}]
    destinations: [{id: hook, type: webhook, url: "`+url+`"}]
`), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	sender := &reloadingSender{}
	dests := deliver.NewDestinations(parse("https://old.example.com"), map[string]deliver.Sender{"webhook": sender})
	dests.Load(parse("https://new.example.com"))
	d, ok := dests.Resolve(store.DestinationRef{ClientID: "acme", ID: "hook"})
	if !ok || d.URL != "https://new.example.com" {
		t.Fatalf("resolved to %+v after the load", d)
	}
	if len(sender.inForce) != 1 || sender.inForce[0].URL != "https://new.example.com" {
		t.Fatalf("the sender was told %+v", sender.inForce)
	}
}
