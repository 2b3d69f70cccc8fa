package sns_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"github.com/pads-dev/pads/internal/deliver/egress"
	"github.com/pads-dev/pads/internal/deliver/sns"
	"github.com/pads-dev/pads/internal/deliver/sns/snstest"
)

// fakeIMDS emulates an EC2 instance metadata service (IMDSv2) that hands
// out the credentials of the instance's role.
func fakeIMDS(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var creds atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPut && r.URL.Path == "/latest/api/token":
			w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", "21600")
			w.Write([]byte("imds-session-token"))
		case r.Header.Get("X-Aws-Ec2-Metadata-Token") != "imds-session-token":
			http.Error(w, "no session", http.StatusUnauthorized)
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/":
			w.Write([]byte("pads-instance-role\n"))
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/pads-instance-role":
			creds.Add(1)
			w.Write([]byte(`{"Code":"Success","AccessKeyId":"ASIAINSTANCEROLE","SecretAccessKey":"secret","Token":"session","Expiration":"2099-01-01T00:00:00Z"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &creds
}

// The SDK's credentials chain reaches the instance metadata service (here
// on 127.0.0.1, as 169.254.169.254 is a private address too), while the
// publish itself stays behind the SSRF guard: a destination that does not
// allow private networks gets its credentials and is then refused at
// connect time; one that does publishes, signed with the role's key.
// (The credentials fetch used to go through the guarded client and fail
// as sns_credentials.)
func TestInstanceRoleCredentialsArePassedTheGuardWhileThePublishIsNot(t *testing.T) {
	t.Parallel()
	imds, fetched := fakeIMDS(t)
	fake := snstest.NewServer()
	defer fake.Close()
	s := sns.NewSender(awsconfig.WithEC2IMDSEndpoint(imds.URL),
		awsconfig.WithSharedConfigFiles([]string{}), awsconfig.WithSharedCredentialsFiles([]string{}))

	guarded := dest(fake, "acme-guarded")
	guarded.AllowPrivateNetworks = false
	if res := s.Send(context.Background(), guarded, message()); res.ErrorClass != egress.ClassBlocked {
		t.Fatalf("a guarded destination on 127.0.0.1: %+v, want %s", res, egress.ClassBlocked)
	}
	if fetched.Load() == 0 {
		t.Fatal("the instance role's credentials were not fetched")
	}
	if len(fake.Published()) != 0 {
		t.Fatal("the guard let a publish to 127.0.0.1 through")
	}
	if res := s.Send(context.Background(), dest(fake, "acme-results"), message()); res.ErrorClass != "" {
		t.Fatalf("Send = %+v", res)
	}
	if p := fake.Published(); len(p) != 1 || !strings.HasPrefix(p[0].AccessKeyID, "ASIAINSTANCEROLE") {
		t.Fatalf("the publish must be signed with the instance role's key: %+v", p)
	}
}

// A task role's credentials come from the container credentials endpoint
// (AWS_CONTAINER_CREDENTIALS_FULL_URI, here on 127.0.0.1): reached past
// the guard, while the publish is not. Not parallel: it sets the
// environment.
func TestTaskRoleCredentialsArePassedTheGuardWhileThePublishIsNot(t *testing.T) {
	var fetched atomic.Int32
	creds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"AccessKeyId":"ASIATASKROLE","SecretAccessKey":"secret","Token":"session","Expiration":"2099-01-01T00:00:00Z"}`))
	}))
	defer creds.Close()
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", creds.URL+"/v2/credentials/task")
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	fake := snstest.NewServer()
	defer fake.Close()
	s := sns.NewSender(awsconfig.WithSharedConfigFiles([]string{}), awsconfig.WithSharedCredentialsFiles([]string{}),
		awsconfig.WithEC2IMDSClientEnableState(0))
	guarded := dest(fake, "acme-guarded")
	guarded.AllowPrivateNetworks = false
	if res := s.Send(context.Background(), guarded, message()); res.ErrorClass != egress.ClassBlocked {
		t.Fatalf("a guarded destination on 127.0.0.1: %+v, want %s", res, egress.ClassBlocked)
	}
	if fetched.Load() == 0 {
		t.Fatal("the task role's credentials were not fetched")
	}
	if res := s.Send(context.Background(), dest(fake, "acme-results"), message()); res.ErrorClass != "" {
		t.Fatalf("Send = %+v", res)
	}
	if p := fake.Published(); len(p) != 1 || p[0].AccessKeyID != "ASIATASKROLE" {
		t.Fatalf("the publish must be signed with the task role's key: %+v", p)
	}
}
