// Package operator is the one service behind every operator front end: the
// admin API, the pads CLI and the web console list, show and replay
// deliveries, read the audit log and reseal records through it, so they
// validate, default, audit and name each action the same way.
//
// Every call is written to the audit log before it takes effect (who, what,
// which target; never a record's values): an action whose audit entry
// cannot be written does not happen.
package operator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver/notify"
	"github.com/pads-dev/pads/internal/store"
)

// The audit log's action names, one per action whatever the front end.
const (
	ActionList         = "deliveries.list"
	ActionShow         = "deliveries.show"
	ActionReplay       = "deliveries.replay"        // one delivery, by id
	ActionReplayFailed = "deliveries.replay_failed" // every failed delivery since a time
	ActionAuditRead    = "audit.read"
	ActionReseal       = "records.reseal"
	ActionBackup       = "records.backup"
	ActionRevokeTokens = "tokens.revoke"
)

// Limits of a listing.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// InvalidError is a request an operator must correct; its message says
// how, and front ends show it as it is (the admin API as a 400).
type InvalidError struct{ msg string }

func (e *InvalidError) Error() string { return e.msg }

func invalid(format string, args ...any) error { return &InvalidError{fmt.Sprintf(format, args...)} }

// Service carries out operators' actions on a store.
type Service struct {
	store store.Store
	now   func() time.Time
	// wake tells the delivery dispatcher that replayed deliveries are due
	// (nil in a process without one: the CLI; the server's poll finds them).
	wake func()
	// tester sends test events (nil: test sends are refused).
	tester Tester
	// config is the config in force (nil: destinations are not checked
	// against it), events is told operator events (nil: none are sent).
	config func() *config.Config
	events func(notify.Event)
	// patients lets the service erase and export patients (WithPatients).
	patients Patients
}

// New returns the service over st. wake may be nil.
func New(st store.Store, now func() time.Time, wake func()) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, now: now, wake: wake}
}

// audit writes the entry of an action about to happen.
func (s *Service) audit(ctx context.Context, actor, action, target string) error {
	err := s.store.Audit(ctx, store.AuditEntry{At: s.now().UTC(), Actor: actor, Action: action, Target: target})
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

// ListRequest selects deliveries; zero fields select all, newest first.
type ListRequest struct {
	State       string // pending, delivered or failed
	ClientID    string
	Destination string // the destination's id; with ClientID where ids repeat across clients
	PatientUUID string // the deliveries of a patient's records
	MessageID   string // the delivery of one webhook-id
	Limit       int    // DefaultLimit when 0
}

// List lists deliveries, newest first: the first page of Page. Errors:
// *InvalidError.
func (s *Service) List(ctx context.Context, actor string, r ListRequest) ([]store.Delivery, error) {
	p, err := s.Page(ctx, actor, PageRequest{State: r.State, ClientID: r.ClientID, Destination: r.Destination,
		PatientUUID: r.PatientUUID, MessageID: r.MessageID, Limit: r.Limit})
	return p.Deliveries, err
}

// Show returns a delivery and its attempts, oldest first. Errors:
// store.ErrNotFound.
func (s *Service) Show(ctx context.Context, actor string, id int64) (store.Delivery, []store.Attempt, error) {
	if err := s.audit(ctx, actor, ActionShow, deliveryTarget(id)); err != nil {
		return store.Delivery{}, nil, err
	}
	return s.store.Delivery(ctx, id)
}

// Replay makes a finished delivery pending again, as a new attempt series
// under the same message id; it returns 1, or 0 when the delivery is
// pending already or does not exist.
func (s *Service) Replay(ctx context.Context, actor string, id int64) (int, error) {
	if err := s.audit(ctx, actor, ActionReplay, deliveryTarget(id)); err != nil {
		return 0, err
	}
	return s.replayed(s.store.Replay(ctx, store.ReplayRequest{ID: id, Now: s.now()}))
}

// ReplayFailed makes every delivery that failed since since (of clientID,
// when not "") pending again, and returns how many.
func (s *Service) ReplayFailed(ctx context.Context, actor string, since time.Time, clientID string) (int, error) {
	return s.ReplayFailedOf(ctx, actor, FailedSelection{Since: since, ClientID: clientID})
}

func (s *Service) replayed(n int, err error) (int, error) {
	if err == nil && n > 0 && s.wake != nil {
		s.wake()
	}
	return n, err
}

// AuditLog returns up to limit entries of the audit log, newest first.
// Errors: *InvalidError.
func (s *Service) AuditLog(ctx context.Context, actor string, limit int) ([]store.AuditEntry, error) {
	limit, err := checkLimit(limit)
	if err != nil {
		return nil, err
	}
	if err := s.audit(ctx, actor, ActionAuditRead, ""); err != nil {
		return nil, err
	}
	return s.store.AuditLog(ctx, limit)
}

// Reseal rewrites every record under the first encryption key.
func (s *Service) Reseal(ctx context.Context, actor string) (store.ResealReport, error) {
	if err := s.audit(ctx, actor, ActionReseal, ""); err != nil {
		return store.ResealReport{}, err
	}
	return s.store.Reseal(ctx)
}

// ErrNoBackup is Backup's answer on a database pads does not copy itself.
var ErrNoBackup = errors.New("pads backup copies SQLite databases only: back up PostgreSQL with pg_dump (or the provider's snapshots and point-in-time recovery)")

// Backup writes a consistent copy of the database to path (a file that
// must not exist) while pads serves. Errors: ErrNoBackup.
func (s *Service) Backup(ctx context.Context, actor, path string) error {
	b, ok := s.store.(store.Backuper)
	if !ok {
		return ErrNoBackup
	}
	if err := s.audit(ctx, actor, ActionBackup, "file:"+path); err != nil {
		return err
	}
	return b.Backup(ctx, path)
}

// RevokeTokens revokes every token of the client issued up to now: the
// revocation covers the whole current second (tokens carry their issue
// time to the second), and it returns the time before which tokens are
// refused. Serving processes refuse them within auth.RevocationBound.
// Errors: *InvalidError.
func (s *Service) RevokeTokens(ctx context.Context, actor, clientID string) (time.Time, error) {
	if clientID == "" {
		return time.Time{}, invalid("a client id is required")
	}
	if err := s.audit(ctx, actor, ActionRevokeTokens, "client:"+clientID); err != nil {
		return time.Time{}, err
	}
	before := s.now().UTC().Truncate(time.Second).Add(time.Second)
	if err := s.store.RevokeTokens(ctx, clientID, before); err != nil {
		return time.Time{}, fmt.Errorf("revoke tokens: %w", err)
	}
	return before, nil
}

// RevokeAdminTokens is RevokeTokens for an admin's tokens of the admin
// API. Errors: *InvalidError.
func (s *Service) RevokeAdminTokens(ctx context.Context, actor, adminID string) (time.Time, error) {
	if adminID == "" {
		return time.Time{}, invalid("an admin id is required")
	}
	if err := s.audit(ctx, actor, ActionRevokeTokens, "admin:"+adminID); err != nil {
		return time.Time{}, err
	}
	before := s.now().UTC().Truncate(time.Second).Add(time.Second)
	if err := s.store.RevokeTokens(ctx, auth.AdminSubject(adminID), before); err != nil {
		return time.Time{}, fmt.Errorf("revoke tokens: %w", err)
	}
	return before, nil
}

func deliveryTarget(id int64) string { return "delivery:" + strconv.FormatInt(id, 10) }

func checkLimit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultLimit, nil
	case n < 1 || n > MaxLimit:
		return 0, invalid("limit must be between 1 and %d", MaxLimit)
	}
	return n, nil
}

// ParseSince reads when a replay of failed deliveries starts: an RFC 3339
// time, or a duration ago ("24h"). Errors: *InvalidError.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, invalid("since is required: an RFC 3339 time or a duration such as 24h")
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, invalid("since must not be a negative duration")
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, invalid("since must be an RFC 3339 time or a duration such as 24h")
	}
	return t, nil
}

// ParseLimit reads a limit given as text; "" is the default. Errors:
// *InvalidError.
func ParseLimit(s string) (int, error) {
	if s == "" {
		return DefaultLimit, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n == 0 {
		return 0, invalid("limit must be between 1 and %d", MaxLimit)
	}
	return checkLimit(n)
}

// IsInvalid reports whether err is an *InvalidError, and returns it.
func IsInvalid(err error) (*InvalidError, bool) {
	var ie *InvalidError
	ok := errors.As(err, &ie)
	return ie, ok
}
