package operator

import (
	"github.com/google/uuid"

	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// The audit log's action names of the web console's own actions; its
// other pages use the actions above (deliveries.list, deliveries.show,
// deliveries.replay, deliveries.replay_failed, audit.read).
const (
	ActionOverview    = "console.overview"
	ActionSignIn      = "console.signin"
	ActionSignOut     = "console.signout"
	ActionCountFailed = "deliveries.count_failed" // how many a replay of failed deliveries would take
)

// Actions lists every action name, for front ends that filter the audit
// log by action.
var Actions = []string{ActionList, ActionShow, ActionReplay, ActionReplayFailed, ActionCountFailed, ActionAuditRead,
	ActionReseal, ActionBackup, ActionErase, ActionExport, ActionOverview, ActionSignIn, ActionSignOut, ActionTestSend, ActionTestResult,
	ActionDestinations, ActionPause, ActionResume}

// What the overview measures.
const (
	// ChartWindow is how far back the chart of deliveries per minute goes.
	ChartWindow = 3 * time.Hour
	// LatencySamples bounds the attempts per destination that the latency
	// percentiles, the last error and "failing since" are taken from: the
	// latest attempts of the day.
	LatencySamples = 500
	// PendingTooLong is how long the oldest pending delivery of a
	// destination may wait before the destination stands out.
	PendingTooLong = 5 * time.Minute
)

// maxID bounds a client or destination id in a filter (ids are at most
// 128 characters), so that no filter makes a long audit entry.
const maxID = 128

// PageRequest selects a page of deliveries; zero fields select all.
type PageRequest struct {
	ClientID    string
	Destination string // only with ClientID
	State       string // pending, delivered or failed
	DataType    string // sensitive, non-sensitive or results-updated
	Since       time.Time
	Until       time.Time
	// PatientUUID selects the deliveries of a patient's records; the
	// audit log names the patient by a keyed reference only.
	PatientUUID string
	// MessageID selects the delivery of one webhook-id.
	MessageID string
	// After is the previous page's Next; "" for the first page.
	After string
	Limit int // DefaultLimit when 0
}

// Page is a page of deliveries, newest first.
type Page struct {
	Deliveries []store.Delivery
	// Next continues after this page (PageRequest.After); "" on the last.
	Next string
}

// Page returns a page of deliveries, newest first: a keyset page that
// costs the same however deep it is. Errors: *InvalidError.
func (s *Service) Page(ctx context.Context, actor string, r PageRequest) (Page, error) {
	q := store.DeliveryQuery{ClientID: r.ClientID, Destination: r.Destination, State: r.State,
		DataType: record.DataType(r.DataType), From: r.Since, To: r.Until, MessageID: r.MessageID}
	if err := checkQuery(q); err != nil {
		return Page{}, err
	}
	if r.PatientUUID != "" {
		u, err := uuid.Parse(r.PatientUUID)
		if err != nil || len(r.PatientUUID) != 36 {
			return Page{}, invalid("the patient uuid must be a UUID in 8-4-4-4-12 hexadecimal form")
		}
		if s.patients.Keys == nil {
			return Page{}, invalid("a search by patient is not available here (it needs the keys of the audit log's references)")
		}
		q.PatientUUID, r.PatientUUID = u.String(), u.String()
	}
	if q.Destination == "" && r.Destination != "" {
		q.Destination = r.Destination
	}
	limit, err := checkLimit(r.Limit)
	if err != nil {
		return Page{}, err
	}
	if r.After != "" {
		c, err := parseCursor(r.After)
		if err != nil {
			return Page{}, err
		}
		q.After = &c
	}
	if err := s.audit(ctx, actor, ActionList, s.pageTarget(r)); err != nil {
		return Page{}, err
	}
	q.Limit = limit + 1 // one more says whether a next page exists
	ds, err := s.store.DeliveryPage(ctx, q)
	if err != nil {
		return Page{}, err
	}
	var p Page
	if len(ds) > limit {
		ds = ds[:limit]
		last := ds[limit-1]
		p.Next = strconv.FormatInt(last.CreatedAt.UnixNano(), 10) + "." + strconv.FormatInt(last.ID, 10)
	}
	p.Deliveries = ds
	return p, nil
}

func checkQuery(q store.DeliveryQuery) error {
	switch {
	case q.State != "" && q.State != store.Pending && q.State != store.Delivered && q.State != store.Failed:
		return invalid("state must be pending, delivered or failed")
	case q.DataType != "" && q.DataType != record.Sensitive && q.DataType != record.NonSensitive && q.DataType != record.ResultsUpdated:
		return invalid("data type must be sensitive, non-sensitive or results-updated")
	case len(q.ClientID) > maxID || len(q.Destination) > maxID:
		return invalid("client and destination ids are at most %d characters", maxID)
	case len(q.MessageID) > 64 || q.MessageID != "" && !strings.HasPrefix(q.MessageID, "msg_"):
		return invalid("a message id is msg_ and 32 hexadecimal digits")
	case !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To):
		return invalid("since must be before until")
	}
	return nil
}

func parseCursor(s string) (store.Cursor, error) {
	at, id, ok := strings.Cut(s, ".")
	ns, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || n <= 0 {
		return store.Cursor{}, invalid("after must be the next page's position as given")
	}
	return store.Cursor{CreatedAt: time.Unix(0, ns).UTC(), ID: n}, nil
}

// pageTarget names a page's filters for the audit log.
func (s *Service) pageTarget(r PageRequest) string {
	var parts []string
	add := func(name, v string) {
		if v != "" {
			parts = append(parts, fmt.Sprintf("%s=%q", name, v))
		}
	}
	add("client", r.ClientID)
	add("destination", r.Destination)
	add("message", r.MessageID)
	if r.PatientUUID != "" {
		// Never the uuid: its keyed reference under the client searched
		// ("" when none was), recomputable by whoever holds the key.
		parts = append(parts, "patient="+s.patients.Keys.Ref("patient", r.ClientID, strings.ToLower(r.PatientUUID)))
	}
	add("status", r.State)
	add("dataType", r.DataType)
	if !r.Since.IsZero() {
		add("since", r.Since.UTC().Format(time.RFC3339))
	}
	if !r.Until.IsZero() {
		add("until", r.Until.UTC().Format(time.RFC3339))
	}
	add("after", r.After)
	return strings.Join(parts, " ")
}

// FailedSelection selects failed deliveries to replay: those that failed
// since Since, of ClientID when given, and of its destination Destination
// when given.
type FailedSelection struct {
	Since       time.Time
	ClientID    string
	Destination string // only with ClientID
}

func (f FailedSelection) check() error {
	switch {
	case f.Since.IsZero():
		return invalid("since is required: an RFC 3339 time or a duration such as 24h")
	case len(f.ClientID) > maxID || len(f.Destination) > maxID:
		return invalid("client and destination ids are at most %d characters", maxID)
	case f.Destination != "" && f.ClientID == "":
		return invalid("a destination is chosen with its client")
	}
	return nil
}

func (f FailedSelection) target() string {
	t := fmt.Sprintf("failed since %s client=%q", f.Since.UTC().Format(time.RFC3339), f.ClientID)
	if f.Destination != "" {
		t += fmt.Sprintf(" destination=%q", f.Destination)
	}
	return t
}

func (f FailedSelection) request(now time.Time) store.ReplayRequest {
	return store.ReplayRequest{Since: f.Since, ClientID: f.ClientID, Destination: f.Destination, Now: now}
}

// CountFailed says how many deliveries ReplayFailedOf(f) would replay now,
// for a confirmation. Errors: *InvalidError.
func (s *Service) CountFailed(ctx context.Context, actor string, f FailedSelection) (int, error) {
	if err := f.check(); err != nil {
		return 0, err
	}
	if err := s.audit(ctx, actor, ActionCountFailed, f.target()); err != nil {
		return 0, err
	}
	return s.store.CountReplay(ctx, f.request(s.now()))
}

// ReplayFailedOf makes every delivery of f pending again, and returns how
// many. ReplayFailed is ReplayFailedOf without a destination. Errors:
// *InvalidError.
func (s *Service) ReplayFailedOf(ctx context.Context, actor string, f FailedSelection) (int, error) {
	if err := f.check(); err != nil {
		return 0, err
	}
	if err := s.audit(ctx, actor, ActionReplayFailed, f.target()); err != nil {
		return 0, err
	}
	return s.replayed(s.store.Replay(ctx, f.request(s.now())))
}

// AuditRequest selects a page of the audit log; zero fields select all.
type AuditRequest struct {
	Actor  string
	Action string
	Before int64 // the previous page's Next; 0 for the newest entries
	Limit  int   // DefaultLimit when 0
}

// AuditPage returns a page of the audit log, newest first, and the Before
// of the next page (0 on the last). Errors: *InvalidError.
func (s *Service) AuditPage(ctx context.Context, actor string, r AuditRequest) ([]store.AuditEntry, int64, error) {
	limit, err := checkLimit(r.Limit)
	if err != nil {
		return nil, 0, err
	}
	if len(r.Actor) > 2*maxID || len(r.Action) > maxID || r.Before < 0 {
		return nil, 0, invalid("actor, action or page out of range")
	}
	var parts []string
	if r.Actor != "" {
		parts = append(parts, fmt.Sprintf("actor=%q", r.Actor))
	}
	if r.Action != "" {
		parts = append(parts, fmt.Sprintf("action=%q", r.Action))
	}
	if r.Before != 0 {
		parts = append(parts, "before="+strconv.FormatInt(r.Before, 10))
	}
	if err := s.audit(ctx, actor, ActionAuditRead, strings.Join(parts, " ")); err != nil {
		return nil, 0, err
	}
	entries, err := s.store.AuditPage(ctx, store.AuditQuery{Actor: r.Actor, Action: r.Action, Before: r.Before, Limit: limit + 1})
	if err != nil || len(entries) <= limit {
		return entries, 0, err
	}
	return entries[:limit], entries[limit-1].ID, nil
}

// SignIn audits an operator's sign-in to the console; the console opens
// the session only once it returns nil.
func (s *Service) SignIn(ctx context.Context, actor string) error {
	return s.audit(ctx, actor, ActionSignIn, "")
}

// SignOut audits an operator's sign-out from the console, before the
// console ends the session.
func (s *Service) SignOut(ctx context.Context, actor string) error {
	return s.audit(ctx, actor, ActionSignOut, "")
}

// Overview is the health of every destination at a glance.
type Overview struct {
	At           time.Time
	Destinations []Health
	// Minutes count the deliveries created in each minute of the
	// ChartWindow before At, oldest first, by current state.
	Minutes []store.ThroughputBucket
}

// Health is one destination's health.
type Health struct {
	store.DestinationRef
	// Hour and Day count the deliveries created in the last hour and day,
	// by their current state.
	Hour, Day store.StateCounts
	// SuccessRate is delivered / (delivered + failed) over the day, or -1
	// when none of the day's deliveries has finished.
	SuccessRate float64
	// P50 and P95 are the attempt durations' percentiles over Sampled of
	// the latest attempts of the day (at most LatencySamples).
	P50, P95 time.Duration
	Sampled  int
	// OldestPending is how long the oldest pending delivery has waited;
	// 0 when none is pending.
	OldestPending time.Duration
	// LastError is the error class of the latest failed attempt among
	// those sampled ("" when none failed), at LastErrorAt, with the HTTP
	// status LastStatus (0: none).
	LastError   string
	LastErrorAt time.Time
	LastStatus  int
	// FailingSince is when the failures that the latest attempts all ended
	// in began; zero when the latest attempt succeeded (or there is none).
	// FailingLonger says they go back beyond the sample.
	FailingSince  time.Time
	FailingLonger bool
	// Paused is set while the destination is paused.
	Paused *store.Pause
	// Trouble says why the destination stands out: its latest attempt
	// failed, a delivery of the last hour failed, or its oldest pending
	// delivery has waited longer than PendingTooLong. Empty: healthy.
	Trouble []string
}

// Overview returns the health of the destinations of known and of every
// destination with deliveries in the last day, destinations in trouble
// first, and the deliveries of each minute of the last ChartWindow.
func (s *Service) Overview(ctx context.Context, actor string, known []store.DestinationRef) (Overview, error) {
	if err := s.audit(ctx, actor, ActionOverview, ""); err != nil {
		return Overview{}, err
	}
	return s.overview(ctx, known)
}

// OverviewRefresh is Overview for an overview page that refreshes itself:
// the operator's opening of the page was audited, its refreshes are not
// (an open page would otherwise write an entry every half minute). The
// overview shows no record's data.
func (s *Service) OverviewRefresh(ctx context.Context, _ string, known []store.DestinationRef) (Overview, error) {
	return s.overview(ctx, known)
}

func (s *Service) overview(ctx context.Context, known []store.DestinationRef) (Overview, error) {
	now := s.now().UTC()
	stats, err := s.store.DestinationStats(ctx, store.StatsQuery{Now: now, Destinations: known, Samples: LatencySamples})
	if err != nil {
		return Overview{}, err
	}
	pauses, err := s.store.PausedDestinations(ctx)
	if err != nil {
		return Overview{}, err
	}
	paused := map[store.DestinationRef]*store.Pause{}
	for i := range pauses {
		paused[pauses[i].DestinationRef] = &pauses[i]
	}
	o := Overview{At: now, Destinations: make([]Health, len(stats))}
	for i, st := range stats {
		o.Destinations[i] = health(st, now)
		o.Destinations[i].Paused = paused[st.DestinationRef]
	}
	slices.SortStableFunc(o.Destinations, func(a, b Health) int {
		switch {
		case len(a.Trouble) > 0 && len(b.Trouble) == 0:
			return -1
		case len(a.Trouble) == 0 && len(b.Trouble) > 0:
			return 1
		}
		return 0
	})
	end := now.Truncate(time.Minute).Add(time.Minute)
	o.Minutes, err = s.store.Throughput(ctx, end.Add(-ChartWindow), end, time.Minute)
	return o, err
}

// health reads a destination's statistics at now.
func health(st store.DestinationStats, now time.Time) Health {
	h := Health{DestinationRef: st.DestinationRef, Hour: st.Hour, Day: st.Day, SuccessRate: -1, Sampled: len(st.Recent)}
	if done := st.Day.Delivered + st.Day.Failed; done > 0 {
		h.SuccessRate = float64(st.Day.Delivered) / float64(done)
	}
	if !st.OldestPending.IsZero() {
		h.OldestPending = max(now.Sub(st.OldestPending), 0)
	}
	durations := make([]time.Duration, len(st.Recent))
	for i, a := range st.Recent {
		durations[i] = a.Duration
		if a.ErrorClass != "" && h.LastError == "" {
			h.LastError, h.LastErrorAt, h.LastStatus = a.ErrorClass, a.StartedAt, a.StatusCode
		}
	}
	slices.Sort(durations)
	h.P50, h.P95 = percentile(durations, 50), percentile(durations, 95)
	// Recent is newest first: the failures since the latest success.
	for i, a := range st.Recent {
		if a.ErrorClass == "" {
			break
		}
		h.FailingSince = a.StartedAt
		h.FailingLonger = i == len(st.Recent)-1 && len(st.Recent) == LatencySamples
	}
	if !h.FailingSince.IsZero() {
		h.Trouble = append(h.Trouble, "latest attempts failed ("+h.LastError+")")
	}
	if n := st.Hour.Failed; n > 0 {
		h.Trouble = append(h.Trouble, fmt.Sprintf("%d failed in the last hour", n))
	}
	if h.OldestPending > PendingTooLong {
		h.Trouble = append(h.Trouble, "oldest pending delivery waiting "+h.OldestPending.Round(time.Second).String())
	}
	return h
}

// percentile is the nearest-rank p-th percentile of sorted; 0 when empty.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[max(rank, 1)-1]
}
