package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/deliver/sns/snstest"
)

// bundleOf reads a delivered FHIR Bundle: its type, tags and the
// resourceType and first code of each entry.
type bundleOf struct {
	ResourceType, Type string
	Meta               struct {
		Tag []struct{ System, Code string }
	}
	Entry []struct {
		FullURL  string
		Resource struct {
			ResourceType string
			Identifier   []struct{ System, Value string }
			Code         struct {
				Coding []struct{ System, Code string }
			}
			Subject struct{ Reference string }
		}
	}
}

func (b bundleOf) codes() []string {
	var out []string
	for _, e := range b.Entry[1:] {
		out = append(out, e.Resource.Code.Coding[0].Code)
	}
	return out
}

// A fhir-r4 destination receives the event's FHIR Bundle, as
// application/fhir+json, signed and headed as a seed-json destination is;
// a seed-json destination of the same client receives the seed payload of
// the same events.
func TestAFHIRDestinationReceivesSignedBundles(t *testing.T) {
	t.Parallel()
	jsonRC, fhirRC := newReceiver(t, nil), newReceiver(t, nil)
	hmac := "        auth:\n          hmac: {secret: " + whsec1 + "}\n"
	path := deliveryConfig(t, "      - id: crm\n        type: webhook\n        url: "+jsonRC.srv.URL+"\n"+hmac+
		"      - id: ehr\n        type: webhook\n        format: fhir-r4\n        url: "+fhirRC.srv.URL+"\n"+hmac, "")
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	uuid := completeForm(t, s, tok, "acme-main", "ada@example.com")
	completeAssessment(t, s, tok, "acme-main", "ada@example.com")
	jsonRC.wait(t, 2, 10*time.Second)
	got := fhirRC.wait(t, 2, 10*time.Second)
	wh, _ := standardwebhooks.NewWebhook(whsec1)
	for i, r := range got { // per-record order: identity first
		event := []string{"non-sensitive", "sensitive"}[i]
		if ct, ev := r.header.Get("Content-Type"), r.header.Get("X-Pads-Event"); ct != "application/fhir+json" || ev != event {
			t.Fatalf("delivery %d: Content-Type %q, event %q", i, ct, ev)
		}
		if r.header.Get("X-Pads-Model") != "pads-score-3" || r.header.Get("X-Pads-Attempt") != "1" {
			t.Errorf("%s headers %v", event, r.header)
		}
		if err := wh.Verify(r.body, r.header); err != nil {
			t.Fatalf("%s: the signature of the Bundle does not verify: %v", event, err)
		}
		var b bundleOf
		if err := json.Unmarshal(r.body, &b); err != nil || b.ResourceType != "Bundle" || b.Type != "collection" || b.Meta.Tag[0].Code != event {
			t.Fatalf("%s body %s", event, r.body)
		}
		p := b.Entry[0]
		if p.Resource.ResourceType != "Patient" || p.Resource.Identifier[0].Value != uuid || p.FullURL != "urn:uuid:"+uuid {
			t.Fatalf("%s patient %+v", event, p)
		}
		if event == "non-sensitive" && len(b.Entry) != 1 {
			t.Fatalf("the identity Bundle holds %d entries, want the Patient only", len(b.Entry))
		}
		if event == "sensitive" {
			want := []string{"8867-4", "85354-9", "9279-1", "2708-6", "rmssd"}
			if c := b.codes(); len(c) < len(want) || fmt.Sprint(c[:len(want)]) != fmt.Sprint(want) {
				t.Fatalf("observations %v, want %v first", c, want)
			}
		}
	}
	for _, r := range jsonRC.all() {
		var p map[string]any
		if r.header.Get("Content-Type") != "application/json" || json.Unmarshal(r.body, &p) != nil || p["uuid"] != uuid {
			t.Fatalf("seed-json delivery %s %s", r.header.Get("Content-Type"), r.body)
		}
	}
}

// An SNS destination of format fhir-r4 publishes the Bundle as the
// message, with the same attributes as the seed payload.
func TestAFHIRSNSDestinationPublishesTheBundle(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	fake := snstest.NewServer()
	defer fake.Close()
	path := deliveryConfig(t, "      - type: sns\n        format: fhir-r4\n        topicArn: arn:aws:sns:us-east-1:123456789012:acme-results\n"+
		"        region: us-east-1\n        endpoint: "+fake.URL+"\n", "")
	s := startServerAt(t, path)
	uuid := completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "ada@example.com")
	waitFor(t, func() bool { return len(fake.Published()) == 1 })
	p := fake.Published()[0]
	var b bundleOf
	if err := json.Unmarshal([]byte(p.Message), &b); err != nil || b.ResourceType != "Bundle" || b.Entry[0].Resource.Identifier[0].Value != uuid {
		t.Fatalf("message %s", p.Message)
	}
	if len(p.Attributes) != 5 || p.Attributes["dataType"] != "non-sensitive" || p.Attributes["uuid"] != uuid {
		t.Fatalf("attributes %v", p.Attributes)
	}
}
