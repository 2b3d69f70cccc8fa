// Package sns delivers payloads as AWS SNS notifications, with the official
// AWS SDK for Go v2.
package sns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	awssns "github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/egress"
)

// Error classes of an SNS attempt (docs/delivery.md).
const (
	ClassThrottled    = "sns_throttled"
	ClassUnauthorized = "sns_unauthorized"
	ClassNotFound     = "sns_not_found"
	ClassInvalid      = "sns_invalid"
	ClassServer       = "sns_5xx"
	ClassCredentials  = "sns_credentials"
	ClassOther        = "sns_error"
)

// Sender publishes to SNS topics. It keeps one SDK client per destination.
type Sender struct {
	policy        func() config.DestinationPolicy
	load          []func(*awsconfig.LoadOptions) error
	guarded, open aws.HTTPClient

	mu      sync.Mutex
	clients map[*config.Destination]*awssns.Client
}

// NewSender returns a Sender. load adds options to the AWS default
// configuration chain (tests give static credentials); credentials
// otherwise come from the environment, shared config or the instance role.
func NewSender(policy func() config.DestinationPolicy, load ...func(*awsconfig.LoadOptions) error) *Sender {
	return &Sender{policy: policy, load: load, guarded: awsClient(true), open: awsClient(false),
		clients: map[*config.Destination]*awssns.Client{}}
}

// awsClient is the SDK's own buildable HTTP client (which honours options
// such as a custom CA bundle) with egress's rules: no proxy and, when
// guarded, connections to public addresses only.
func awsClient(guarded bool) aws.HTTPClient {
	return awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) {
			if guarded {
				d.Control = egress.Guard
			}
		}).
		WithTransportOptions(func(t *http.Transport) { t.Proxy = nil })
}

// Send publishes one attempt.
func (s *Sender) Send(ctx context.Context, clientID string, d *config.Destination, m deliver.Message) deliver.Result {
	c, err := s.client(ctx, d)
	if err != nil {
		return deliver.Result{ErrorClass: ClassCredentials}
	}
	str := func(v string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	in := &awssns.PublishInput{
		TopicArn: aws.String(d.TopicARN),
		Message:  aws.String(string(m.Body)),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"dataType": str(string(m.DataType)),
			"funnelID": str(m.FunnelID),
			"uuid":     str(m.Key.PatientUUID),
			"eventId":  str(m.ID),
		},
	}
	if strings.HasSuffix(d.TopicARN, ".fifo") {
		// One patient's messages stay in order, and SNS itself drops the
		// duplicate of a retried publish.
		in.MessageGroupId = aws.String(m.Key.PatientUUID)
		in.MessageDeduplicationId = aws.String(m.ID)
	}
	out, err := c.Publish(ctx, in)
	if err != nil {
		return classify(ctx, err)
	}
	return deliver.Result{StatusCode: 200, Response: fmt.Appendf(nil, `{"MessageId":%q}`, aws.ToString(out.MessageId))}
}

// client returns the destination's SDK client, made on first use. Retries
// are the outbox's, per the destination's policy, so the SDK makes one try.
func (s *Sender) client(ctx context.Context, d *config.Destination) (*awssns.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[d]; ok {
		return c, nil
	}
	if len(s.clients) >= 10_000 { // destinations replaced by reloads
		clear(s.clients)
	}
	hc := s.guarded
	if s.policy().AllowPrivateNetworks {
		hc = s.open
	}
	opts := append([]func(*awsconfig.LoadOptions) error{
		awsconfig.WithRegion(d.Region),
		awsconfig.WithHTTPClient(hc),
		awsconfig.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
	}, s.load...)
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	if d.RoleARN != "" {
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), d.RoleARN))
	}
	c := awssns.NewFromConfig(cfg, func(o *awssns.Options) {
		if d.Endpoint != "" {
			o.BaseEndpoint = aws.String(d.Endpoint)
		}
	})
	s.clients[d] = c
	return c, nil
}

// classify names an SNS failure by its error code, never its message.
func classify(ctx context.Context, err error) deliver.Result {
	var res deliver.Result
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		res.StatusCode = re.HTTPStatusCode()
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		if res.StatusCode == 0 && strings.Contains(err.Error(), "credentials") {
			res.ErrorClass = ClassCredentials
		} else if res.StatusCode >= 500 {
			res.ErrorClass = ClassServer
		} else {
			res.ErrorClass = egress.Classify(ctx, err)
		}
		return res
	}
	res.Response = fmt.Appendf(nil, `{"code":%q}`, ae.ErrorCode())
	switch ae.ErrorCode() {
	case "Throttling", "ThrottlingException", "Throttled", "ThrottledException", "RequestThrottled", "TooManyRequestsException":
		res.ErrorClass = ClassThrottled
	case "AuthorizationError", "AccessDenied", "AccessDeniedException", "InvalidClientTokenId", "SignatureDoesNotMatch",
		"ExpiredToken", "UnrecognizedClientException", "InvalidAccessKeyId", "KMSAccessDenied", "KMSDisabled":
		res.ErrorClass, res.Permanent = ClassUnauthorized, true
	case "NotFound", "NotFoundException", "ResourceNotFound":
		res.ErrorClass, res.Permanent = ClassNotFound, true
	case "InvalidParameter", "InvalidParameterValue", "ParameterValueInvalid":
		res.ErrorClass, res.Permanent = ClassInvalid, true
	default:
		res.ErrorClass = ClassOther
		if res.StatusCode >= 500 || ae.ErrorFault() == smithy.FaultServer {
			res.ErrorClass = ClassServer
		}
	}
	return res
}
