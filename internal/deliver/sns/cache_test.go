package sns

import (
	"context"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/sns/snstest"
	"github.com/pads-dev/pads/internal/store"
)

// A destination's SDK client is kept by its id, made again when its
// settings change, and dropped by a reload that no longer has it.
func TestClientsAreKeptByDestinationAndRebuiltWhenSettingsChange(t *testing.T) {
	t.Parallel()
	a, b := snstest.NewServer(), snstest.NewServer()
	defer a.Close()
	defer b.Close()
	s := NewSender(awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")),
		awsconfig.WithEC2IMDSClientEnableState(0))
	d := deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: "topic"}, Type: "sns",
		TopicARN: "arn:aws:sns:us-east-1:123456789012:t", Region: "us-east-1", Endpoint: a.URL, Timeout: 5 * time.Second,
		AllowPrivateNetworks: true, AllowPlainHTTP: true}
	m := deliver.Message{ID: "msg_1", DataType: "non-sensitive", Body: []byte(`{}`), Timestamp: time.Now()}
	for range 2 {
		if res := s.Send(context.Background(), &d, m); res.ErrorClass != "" {
			t.Fatalf("Send = %+v", res)
		}
	}
	first := s.clients[d.Ref].sns

	d.Endpoint = b.URL // a reload rotated the endpoint
	if res := s.Send(context.Background(), &d, m); res.ErrorClass != "" {
		t.Fatalf("Send = %+v", res)
	}
	if len(a.Published()) != 2 || len(b.Published()) != 1 || s.clients[d.Ref].sns == first {
		t.Fatalf("published %d to the old endpoint and %d to the new", len(a.Published()), len(b.Published()))
	}
	s.Reload([]deliver.Destination{d})
	if len(s.clients) != 1 {
		t.Fatal("a reload that keeps the destination dropped its client")
	}
	s.Reload(nil)
	if len(s.clients) != 0 {
		t.Fatal("a reload without the destination kept its client")
	}
}
