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
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	awssns "github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/egress"
	"github.com/pads-dev/pads/internal/store"
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

// Sender publishes to SNS topics. It keeps one SDK client per
// destination, made from the destination's settings and made again when a
// reload changes them.
type Sender struct {
	load          []func(*awsconfig.LoadOptions) error
	guarded, open aws.HTTPClient
	// creds fetches credentials: from the instance metadata service
	// (169.254.169.254), a container's credentials endpoint or STS. Those
	// are the operator's, not a destination's, so they are not behind the
	// SSRF guard; the publish is.
	creds aws.HTTPClient

	mu      sync.Mutex
	clients map[store.DestinationRef]client
}

// client is a destination's SDK client and the settings it was made from.
type client struct {
	settings settings
	sns      *awssns.Client
}

// settings are what an SDK client is made from.
type settings struct {
	region, endpoint, roleARN string
	private                   bool
}

func settingsOf(d *deliver.Destination) settings {
	return settings{region: d.Region, endpoint: d.Endpoint, roleARN: d.RoleARN, private: d.AllowPrivateNetworks}
}

var _ deliver.Reloader = (*Sender)(nil)

// NewSender returns a Sender. load adds options to the AWS default
// configuration chain (tests give static credentials); credentials
// otherwise come from the environment, shared config or the instance role.
func NewSender(load ...func(*awsconfig.LoadOptions) error) *Sender {
	return &Sender{load: load, guarded: awsClient(true), open: awsClient(false), creds: credentialsClient(),
		clients: map[store.DestinationRef]client{}}
}

// Reload drops the clients of destinations that are gone or whose
// settings changed.
func (s *Sender) Reload(dests []deliver.Destination) {
	current := map[store.DestinationRef]settings{}
	for i := range dests {
		current[dests[i].Ref] = settingsOf(&dests[i])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for ref, c := range s.clients {
		if st, ok := current[ref]; !ok || st != c.settings {
			delete(s.clients, ref)
		}
	}
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

// credentialsFetchTimeout bounds one credentials fetch. The SDK's cache
// lets one fetch run at a time, past the deadline of the attempt that
// started it (each attempt still waits no longer than its own deadline),
// so the fetch needs a bound of its own.
const credentialsFetchTimeout = 30 * time.Second

// credentialsClient is the client of the AWS credentials chain: no proxy,
// no SSRF guard, each fetch bounded.
func credentialsClient() aws.HTTPClient {
	return awshttp.NewBuildableClient().
		WithTimeout(credentialsFetchTimeout).
		WithTransportOptions(func(t *http.Transport) { t.Proxy = nil })
}

// Send publishes one attempt.
func (s *Sender) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	c, err := s.client(ctx, d)
	if err != nil {
		return deliver.Result{ErrorClass: ClassCredentials}
	}
	str := func(v string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	attrs := map[string]types.MessageAttributeValue{}
	for name, v := range map[string]string{"dataType": string(m.DataType), "funnelID": m.FunnelID,
		"uuid": m.Key.PatientUUID, "eventId": m.ID, "model": m.Model} {
		if v != "" { // SNS refuses an empty attribute; a test send has no patient
			attrs[name] = str(v)
		}
	}
	in := &awssns.PublishInput{
		TopicArn:          aws.String(d.TopicARN),
		Message:           aws.String(string(m.Body)),
		MessageAttributes: attrs,
	}
	if strings.HasSuffix(d.TopicARN, ".fifo") {
		// One patient's messages stay in order, and SNS itself drops the
		// duplicate of a retried publish. A test send is a group of its own.
		group := m.Key.PatientUUID
		if group == "" {
			group = m.ID
		}
		in.MessageGroupId = aws.String(group)
		in.MessageDeduplicationId = aws.String(m.ID)
	}
	out, err := c.Publish(ctx, in)
	if err != nil {
		return classify(ctx, err)
	}
	return deliver.Result{StatusCode: 200, Response: fmt.Appendf(nil, `{"MessageId":%q}`, aws.ToString(out.MessageId))}
}

// client returns the destination's SDK client, made on first use and
// again when its settings changed. Retries are the outbox's, per the
// destination's policy, so the SDK makes one try.
func (s *Sender) client(ctx context.Context, d *deliver.Destination) (*awssns.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := settingsOf(d)
	if c, ok := s.clients[d.Ref]; ok && c.settings == st {
		return c.sns, nil
	}
	hc := s.guarded
	if d.AllowPrivateNetworks {
		hc = s.open
	}
	opts := append([]func(*awsconfig.LoadOptions) error{
		awsconfig.WithRegion(d.Region),
		awsconfig.WithHTTPClient(s.creds),
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
		o.HTTPClient = hc
		if d.Endpoint != "" {
			o.BaseEndpoint = aws.String(d.Endpoint)
		}
	})
	s.clients[d.Ref] = client{settings: st, sns: c}
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
		// Retried: credentials rotate and policies get fixed, and an
		// attempt that waits for that loses nothing.
		res.ErrorClass = ClassUnauthorized
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
