package receiver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/receiver"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// now is the receiver's clock in the examples.
var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// signed makes a request as pads sends it: the body, signed with the
// secret at the time at.
func signed(id string, at time.Time, body string) *http.Request {
	wh, _ := standardwebhooks.NewWebhook(secret)
	sig, _ := wh.Sign(id, at, []byte(body))
	r := httptest.NewRequest("POST", "/webhooks/pads", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("webhook-id", id)
	r.Header.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	r.Header.Set("webhook-signature", sig)
	return r
}

const identity = `{"assessmentType":"faceScan","funnelID":"acme-main","uuid":"6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f",
"email":"ada@example.com","firstName":"Ada","lastName":"Lovelace","phoneNumber":null,"zipCode":"02134","biologicalSex":"female",
"age":36,"dateOfBirth":"1990-02-28","city":null,"state":null,"IPAddress":null,"contactConsent":true,"formCompleted":true}`

// A Handler takes each delivery once: the same webhook-id again (pads
// delivers at least once) is answered 2xx and not handed on; a forged or
// stale delivery is refused.
func Example() {
	h, err := receiver.New(secret, func(ctx context.Context, d *receiver.Delivery) error {
		fmt.Printf("handled %s %s: %s %s\n", d.ID, d.Event, *d.NonSensitive.FirstName, *d.NonSensitive.UUID)
		return nil // a real receiver puts d on its queue here
	}, receiver.WithClock(func() time.Time { return now }))
	if err != nil {
		panic(err)
	}
	for _, r := range []*http.Request{
		signed("msg_1", now, identity),
		signed("msg_1", now.Add(30*time.Second), identity),  // a retry of the same delivery
		signed("msg_2", now.Add(-10*time.Minute), identity), // too old: a captured request replayed
		func() *http.Request {
			r := signed("msg_3", now, identity)
			r.Header.Set("webhook-signature", "v1,Zm9yZ2Vk")
			return r
		}(),
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(r.Header.Get("webhook-id"), w.Code)
	}
	// Output:
	// handled msg_1 non-sensitive: Ada 6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f
	// msg_1 204
	// msg_1 204
	// msg_2 401
	// msg_3 401
}

// Decode reads a body already verified, such as an SNS message taken
// from an SQS queue.
func ExampleDecode() {
	d, err := receiver.Decode([]byte(identity))
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Format, d.Event, *d.NonSensitive.Email, d.NonSensitive.PhoneNumber == nil)
	// Output: seed-json non-sensitive ada@example.com true
}

const bundle = `{"resourceType":"Bundle","meta":{"tag":[{"system":"https://pads.dev/fhir/CodeSystem/event","code":"sensitive"}]},
"type":"collection","timestamp":"2026-11-22T12:00:00Z","entry":[
{"fullUrl":"urn:uuid:6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f","resource":{"resourceType":"Patient",
 "identifier":[{"system":"https://pads.dev/fhir/patient-uuid","value":"6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"}],"gender":"female"}},
{"fullUrl":"urn:uuid:95fca233-2262-50b0-96b8-985428510bba","resource":{"resourceType":"Observation","status":"final",
 "code":{"coding":[{"system":"http://loinc.org","code":"8867-4","display":"Heart rate"}],"text":"Heart rate"},
 "subject":{"reference":"urn:uuid:6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"},"effectiveDateTime":"2026-11-22T12:00:00Z",
 "valueQuantity":{"value":62,"unit":"beats/minute","system":"http://unitsofmeasure.org","code":"/min"},
 "interpretation":[{"text":"Normal range"}]}},
{"fullUrl":"urn:uuid:b3c0c2b1-33f1-5a63-9a51-2b8d5d1bd6a2","resource":{"resourceType":"Observation","status":"final",
 "code":{"coding":[{"system":"https://pads.dev/fhir/CodeSystem/score","code":"relaxationScore"}],"text":"Relaxation score (0-100)"},
 "subject":{"reference":"urn:uuid:6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"},"effectiveDateTime":"2026-11-22T12:00:00Z",
 "valueQuantity":{"value":100,"unit":"score","system":"http://unitsofmeasure.org","code":"{score}"},
 "method":{"text":"pads-score-3"},"derivedFrom":[{"reference":"urn:uuid:95fca233-2262-50b0-96b8-985428510bba"}]}}]}`

// A FHIR delivery (format: fhir-r4) decodes into a Bundle, whose Patient
// and Observations decode in turn.
func ExampleBundle_Observations() {
	d, err := receiver.Decode([]byte(bundle))
	if err != nil {
		panic(err)
	}
	p, _ := d.Bundle.Patient()
	fmt.Println(d.Format, d.Event, p.UUID(), p.Gender)
	obs, _ := d.Bundle.Observations()
	for _, o := range obs {
		if code := o.CodeIn(receiver.LOINC); code != "" {
			fmt.Printf("LOINC %s %s: %v %s\n", code, o.Code.Text, o.ValueQuantity.Value, o.ValueQuantity.Unit)
		} else {
			fmt.Printf("pads %s: %v, by %s\n", o.CodeIn(receiver.ScoreSystem), o.ValueQuantity.Value, o.Method.Text)
		}
	}
	// Output:
	// fhir-r4 sensitive 6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f female
	// LOINC 8867-4 Heart rate: 62 beats/minute
	// pads relaxationScore: 100, by pads-score-3
}

// NewMemorySeen remembers the latest ids up to its capacity.
func ExampleNewMemorySeen() {
	seen := receiver.NewMemorySeen(2)
	ctx := context.Background()
	for _, id := range []string{"msg_1", "msg_1", "msg_2", "msg_3", "msg_1"} {
		first, _ := seen.Add(ctx, id)
		fmt.Print(id, " ", first, "; ")
	}
	fmt.Println()
	// Output: msg_1 true; msg_1 false; msg_2 true; msg_3 true; msg_1 true;
}
