package sns_test

import (
	"context"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/sns"
	"github.com/pads-dev/pads/internal/deliver/sns/snstest"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

func sender() *sns.Sender {
	return sns.NewSender(
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")),
		awsconfig.WithEC2IMDSClientEnableState(0))
}

func message() deliver.Message {
	return deliver.Message{ID: "msg_0123", DataType: record.Sensitive, Model: "pads-score-1", Attempt: 1, FunnelID: "acme-main",
		Key:  record.Key{ClientID: "acme", PatientUUID: "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", AssessmentType: "faceScan"},
		Body: []byte(`{"uuid":"6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f","healthCreditScore":845}`), Timestamp: time.Now()}
}

func dest(fake *snstest.Server, topic string) *deliver.Destination {
	return &deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: topic}, Type: "sns",
		TopicARN: "arn:aws:sns:us-east-1:123456789012:" + topic, Region: "us-east-1", Endpoint: fake.URL, Timeout: 5 * time.Second,
		AllowPrivateNetworks: true, AllowPlainHTTP: true}
}

func TestPublishCarriesThePayloadAndEveryAttribute(t *testing.T) {
	t.Parallel()
	fake := snstest.NewServer()
	defer fake.Close()
	res := sender().Send(context.Background(), dest(fake, "acme-results"), message())
	if res.ErrorClass != "" || res.StatusCode != 200 || string(res.Response) != `{"MessageId":"00000000-0000-4000-8000-000000000001"}` {
		t.Fatalf("Send = %+v", res)
	}
	p := fake.Published()
	if len(p) != 1 {
		t.Fatalf("%d publishes", len(p))
	}
	got := p[0]
	if got.TopicARN != "arn:aws:sns:us-east-1:123456789012:acme-results" || got.Message != string(message().Body) || !got.Authorized {
		t.Fatalf("publish = %+v", got)
	}
	want := map[string]string{"dataType": "sensitive", "funnelID": "acme-main", "uuid": "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f",
		"eventId": "msg_0123", "model": "pads-score-1"}
	for k, v := range want {
		if got.Attributes[k] != v || got.AttributeTypes[k] != "String" {
			t.Errorf("attribute %s = %q (%s), want %q (String)", k, got.Attributes[k], got.AttributeTypes[k], v)
		}
	}
	if got.MessageGroupID != "" || got.MessageDeduplicationID != "" {
		t.Errorf("a standard topic gets no FIFO fields: %+v", got)
	}
}

func TestFIFOTopicsGetAGroupAndADeduplicationID(t *testing.T) {
	t.Parallel()
	fake := snstest.NewServer()
	defer fake.Close()
	if res := sender().Send(context.Background(), dest(fake, "acme-results.fifo"), message()); res.ErrorClass != "" {
		t.Fatalf("Send = %+v", res)
	}
	got := fake.Published()[0]
	if got.MessageGroupID != "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f" || got.MessageDeduplicationID != "msg_0123" {
		t.Fatalf("FIFO fields: group %q dedup %q", got.MessageGroupID, got.MessageDeduplicationID)
	}
}

func TestErrorsAreClassedAndOnlyTransientOnesRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault     snstest.Fault
		class     string
		permanent bool
	}{
		{snstest.Throttled, sns.ClassThrottled, false},
		{snstest.Internal, sns.ClassServer, false},
		{snstest.Unauthorized, sns.ClassUnauthorized, false},
		{snstest.NotFound, sns.ClassNotFound, true},
	}
	for _, tt := range tests {
		t.Run(tt.fault.Code, func(t *testing.T) {
			t.Parallel()
			fake := snstest.NewServer()
			defer fake.Close()
			fake.Faults = func(int) snstest.Fault { return tt.fault }
			res := sender().Send(context.Background(), dest(fake, "t"), message())
			if res.ErrorClass != tt.class || res.Permanent != tt.permanent || res.StatusCode != tt.fault.Status {
				t.Fatalf("Send = %+v, want class %s permanent %v status %d", res, tt.class, tt.permanent, tt.fault.Status)
			}
			if fake.Calls() != 1 {
				t.Fatalf("the SDK made %d calls: retries belong to the outbox", fake.Calls())
			}
		})
	}
}

// TestRoleArnPublishesWithTheAssumedRolesCredentials points the SDK's STS
// client at the fake too (AWS_ENDPOINT_URL_STS), so not parallel.
func TestRoleArnPublishesWithTheAssumedRolesCredentials(t *testing.T) {
	fake := snstest.NewServer()
	defer fake.Close()
	t.Setenv("AWS_ENDPOINT_URL_STS", fake.URL)
	d := dest(fake, "acme-results")
	d.RoleARN = "arn:aws:iam::123456789012:role/pads-publish"
	if res := sender().Send(context.Background(), d, message()); res.ErrorClass != "" {
		t.Fatalf("Send = %+v", res)
	}
	if roles := fake.AssumedRoles(); len(roles) != 1 || roles[0] != d.RoleARN {
		t.Fatalf("AssumeRole calls: %v", roles)
	}
	if p := fake.Published(); len(p) != 1 || p[0].AccessKeyID != snstest.AssumedKeyID {
		t.Fatalf("the publish must be signed with the assumed role's key: %+v", p)
	}
}
