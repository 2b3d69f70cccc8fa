// Package snstest is an in-process fake of the SNS Publish API, speaking
// the AWS query protocol (form POST in, XML out), for tests that point the
// real AWS SDK at it with BaseEndpoint.
package snstest

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Publish is one Publish call the fake received.
type Publish struct {
	TopicARN               string
	Message                string
	Attributes             map[string]string // name -> string value
	AttributeTypes         map[string]string // name -> data type
	MessageGroupID         string
	MessageDeduplicationID string
	Authorized             bool   // the request carried a SigV4 Authorization header
	AccessKeyID            string // the key that signed it
}

// AssumedKeyID is the access key id the fake's AssumeRole hands out.
const AssumedKeyID = "ASIAFAKEASSUMEDROLE"

// Fault is an error the fake answers with, in the SNS ErrorResponse shape.
type Fault struct {
	Status int
	Code   string
}

// Common faults.
var (
	Throttled    = Fault{http.StatusBadRequest, "Throttling"}
	Unauthorized = Fault{http.StatusForbidden, "AuthorizationError"}
	NotFound     = Fault{http.StatusNotFound, "NotFound"}
	Internal     = Fault{http.StatusInternalServerError, "InternalError"}
)

// Server is the fake. Faults, when set, answers the n-th call (0-based);
// a zero Fault publishes.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	publishs []Publish
	roles    []string
	calls    int
	Faults   func(n int) Fault
}

// AssumedRoles returns the role ARNs AssumeRole was called for. Point the
// SDK's STS client at the fake with AWS_ENDPOINT_URL_STS.
func (s *Server) AssumedRoles() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.roles...)
}

// NewServer starts a fake on 127.0.0.1.
func NewServer() *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Published returns the successful publishes so far.
func (s *Server) Published() []Publish {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Publish(nil), s.publishs...)
}

// Calls counts every call, failed ones included.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err == nil && r.Form.Get("Action") == "AssumeRole" {
		s.mu.Lock()
		s.roles = append(s.roles, r.Form.Get("RoleArn"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprintf(w, `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>%s</AccessKeyId><SecretAccessKey>secret</SecretAccessKey><SessionToken>token</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials><AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/pads/s</Arn><AssumedRoleId>AROAFAKE:s</AssumedRoleId></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>`, AssumedKeyID)
		return
	}
	if r.Form.Get("Action") != "Publish" {
		writeFault(w, Fault{http.StatusBadRequest, "InvalidAction"})
		return
	}
	s.mu.Lock()
	n := s.calls
	s.calls++
	faults := s.Faults
	s.mu.Unlock()
	if faults != nil {
		if f := faults(n); f.Code != "" {
			writeFault(w, f)
			return
		}
	}
	p := Publish{
		TopicARN: r.Form.Get("TopicArn"), Message: r.Form.Get("Message"),
		MessageGroupID: r.Form.Get("MessageGroupId"), MessageDeduplicationID: r.Form.Get("MessageDeduplicationId"),
		Attributes: map[string]string{}, AttributeTypes: map[string]string{},
		Authorized:  strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 "),
		AccessKeyID: accessKeyID(r.Header.Get("Authorization")),
	}
	for i := 1; ; i++ {
		prefix := fmt.Sprintf("MessageAttributes.entry.%d.", i)
		name := r.Form.Get(prefix + "Name")
		if name == "" {
			break
		}
		p.Attributes[name] = r.Form.Get(prefix + "Value.StringValue")
		p.AttributeTypes[name] = r.Form.Get(prefix + "Value.DataType")
	}
	s.mu.Lock()
	s.publishs = append(s.publishs, p)
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(s.publishs))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>%s</MessageId></PublishResult><ResponseMetadata><RequestId>req-%d</RequestId></ResponseMetadata></PublishResponse>`, id, n)
}

// accessKeyID reads the key id from "AWS4-HMAC-SHA256 Credential=KEY/...".
func accessKeyID(auth string) string {
	_, rest, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

func writeFault(w http.ResponseWriter, f Fault) {
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(f.Status)
	kind := "Sender"
	if f.Status >= 500 {
		kind = "Receiver"
	}
	var msg strings.Builder
	xml.EscapeText(&msg, []byte("fault injected by snstest"))
	fmt.Fprintf(w, `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>%s</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>req</RequestId></ErrorResponse>`, kind, f.Code, msg.String())
}
