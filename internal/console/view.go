package console

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
)

// funcs are the templates' helpers. Every time is shown in UTC.
var funcs = template.FuncMap{
	"utc": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"ago": ago,
	"scopeLabel": func(scope string) string {
		return strings.ReplaceAll(scope, "/", " › ")
	},
	"age":   age,
	"ms":    millis,
	"pct":   percent,
	"count": func(n int) string { return strconv.Itoa(n) },
	"deliveryURL": func(id int64) string {
		return deliveriesPath + "/" + strconv.FormatInt(id, 10)
	},
}

// ago says how long before now t was ("3m ago").
func ago(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	if d > -2*time.Second && d < time.Second {
		return "just now" // an entry written as the page was made
	}
	if d < 0 {
		return "in " + age(-d)
	}
	return age(d) + " ago"
}

// age writes a duration the way people read a wait: 45s, 12m, 3h 5m, 2d.
func age(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return strconv.Itoa(h) + "h"
		}
		return fmt.Sprintf("%dh %dm", h, m)
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// millis writes an attempt's duration.
func millis(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	case d < 10*time.Second:
		return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// percent writes a success rate; below 0 means none.
func percent(f float64) string {
	switch {
	case f < 0:
		return "—"
	case f == 1:
		return "100%"
	case f >= 0.999:
		return ">99.9%" // never round a failure away
	}
	return strconv.FormatFloat(math.Floor(f*1000)/10, 'f', 1, 64) + "%"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// splitScope reads a scope: "" (everything), "client", or
// "client/destination" (ids hold no '/').
func splitScope(scope string) (client, destination string) {
	client, destination, _ = strings.Cut(scope, "/")
	return client, destination
}

type option struct {
	Value, Label string
	Selected     bool
}

// scopes are the choices of client and destination, from the config, with
// current among them even when the config no longer has it.
func scopes(cfg *config.Config, current string) []option {
	out := []option{{Value: "", Label: "All clients and destinations"}}
	for _, cl := range cfg.Clients {
		out = append(out, option{Value: cl.ID, Label: cl.ID + " (every destination)"})
		for _, d := range cl.Destinations {
			out = append(out, option{Value: cl.ID + "/" + d.ID, Label: cl.ID + " › " + d.ID + " (" + d.Type + ", " + d.Environment + ")"})
		}
	}
	found := false
	for i := range out {
		if out[i].Value == current {
			out[i].Selected, found = true, true
		}
	}
	if !found {
		out = append(out, option{Value: current, Label: strings.ReplaceAll(current, "/", " › ") + " (not in the config)", Selected: true})
	}
	return out
}

func choices(current string, values ...string) []option {
	out := []option{{Value: "", Label: "any"}}
	for _, v := range values {
		out = append(out, option{Value: v, Label: v, Selected: v == current})
	}
	return out
}

func scopeURL(path string, scope string, extra url.Values) string {
	v := url.Values{}
	if scope != "" {
		v.Set("scope", scope)
	}
	for k, vs := range extra {
		v[k] = vs
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// overviewPage is the overview's data.
type overviewPage struct {
	At           time.Time
	RefreshEvery int // seconds
	Rows         []destinationRow
	Trouble      int
	Hour         store.StateCounts
	Day          store.StateCounts
	Chart        chart
}

// destinationRow is one destination of the overview.
type destinationRow struct {
	operator.Health
	Type, Environment string // from the config; "" when it has left the config
	PendingLong       bool   // the oldest pending delivery waited past operator.PendingTooLong
	Host              string // the URL's host or the topic's name
	DeliveriesURL     string
	TestURL           string
	PauseURL          string
	ResumeURL         string
	FailedURL         string
	PendingURL        string
	ReplayURL         string
}

func newOverviewPage(o operator.Overview, cfg *config.Config) overviewPage {
	p := overviewPage{At: o.At, Chart: newChart(o.Minutes), RefreshEvery: int(refreshEvery / time.Second)}
	for _, h := range o.Destinations {
		scope := h.ClientID + "/" + h.ID
		row := destinationRow{Health: h, PendingLong: h.OldestPending > operator.PendingTooLong,
			DeliveriesURL: scopeURL(deliveriesPath, scope, nil),
			FailedURL:     scopeURL(deliveriesPath, scope, url.Values{"state": {store.Failed}}),
			PendingURL:    scopeURL(deliveriesPath, scope, url.Values{"state": {store.Pending}}),
			ReplayURL:     scopeURL(replaysPath, scope, url.Values{"since": {"24h"}}),
			TestURL:       destinationsPath + url.PathEscape(h.ClientID) + "/" + url.PathEscape(h.ID) + "/test"}
		if d := cfg.Destination(h.ClientID, h.ID); d != nil && d.ID == h.ID {
			row.Type, row.Environment, row.Host = d.Type, d.Environment, d.Host()
		}
		base := destinationsPath + url.PathEscape(h.ClientID) + "/" + url.PathEscape(h.ID)
		row.PauseURL, row.ResumeURL = base+"/pause", base+"/resume"
		if len(h.Trouble) > 0 {
			p.Trouble++
		}
		add := func(sum *store.StateCounts, c store.StateCounts) {
			sum.Pending, sum.Delivered, sum.Failed = sum.Pending+c.Pending, sum.Delivered+c.Delivered, sum.Failed+c.Failed
		}
		add(&p.Hour, h.Hour)
		add(&p.Day, h.Day)
		p.Rows = append(p.Rows, row)
	}
	return p
}

// chart is the overview's SVG of deliveries per minute, stacked by state,
// drawn on the server: no script, no external image.
type chart struct {
	Width, Height int
	Left, Top     int // the plot's origin
	PlotW, PlotH  int
	Bars          []bar
	XTicks        []tick
	YTicks        []tick
	Max           int
	Total         int
}

type bar struct {
	Title string
	Segs  []seg
}

type seg struct {
	X, Y, W, H float64
	Class      string
}

type tick struct {
	X, Y  float64
	Label string
}

const (
	chartLeft   = 44
	chartTop    = 10
	chartPlotH  = 140
	chartBottom = 24
	barStep     = 6 // pixels per minute
)

func newChart(buckets []store.ThroughputBucket) chart {
	c := chart{Left: chartLeft, Top: chartTop, PlotW: barStep * len(buckets), PlotH: chartPlotH}
	c.Width, c.Height = chartLeft+c.PlotW+12, chartTop+chartPlotH+chartBottom
	for _, b := range buckets {
		c.Max = max(c.Max, b.Pending+b.Delivered+b.Failed)
		c.Total += b.Pending + b.Delivered + b.Failed
	}
	top := niceCeil(c.Max)
	scale := float64(chartPlotH) / float64(top)
	for i, b := range buckets {
		x := float64(chartLeft + i*barStep)
		if b.Start.Minute()%30 == 0 {
			c.XTicks = append(c.XTicks, tick{X: x, Y: chartTop + chartPlotH + 16, Label: b.Start.UTC().Format("15:04")})
		}
		n := b.Pending + b.Delivered + b.Failed
		if n == 0 {
			continue
		}
		br := bar{Title: fmt.Sprintf("%s UTC: %d delivered, %d failed, %d pending", b.Start.UTC().Format("15:04"), b.Delivered, b.Failed, b.Pending)}
		y := float64(chartTop + chartPlotH)
		for _, part := range []struct {
			n     int
			class string
		}{{b.Delivered, "delivered"}, {b.Failed, "failed"}, {b.Pending, "pending"}} {
			if part.n == 0 {
				continue
			}
			h := math.Max(float64(part.n)*scale, 1) // a single failure stays visible
			y -= h
			br.Segs = append(br.Segs, seg{X: x, Y: y, W: barStep - 1, H: h, Class: part.class})
		}
		c.Bars = append(c.Bars, br)
	}
	for _, v := range []int{0, top / 2, top} {
		if v == top/2 && top%2 != 0 {
			continue // no midpoint on a scale of 5, 50, ...
		}
		c.YTicks = append(c.YTicks, tick{X: chartLeft - 6, Y: float64(chartTop+chartPlotH) - float64(v)*scale, Label: strconv.Itoa(v)})
	}
	return c
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten (at least 2).
func niceCeil(n int) int {
	if n <= 2 {
		return 2
	}
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}

// filters are the deliveries page's filters, as the operator wrote them.
type filters struct {
	Scope, State, Type, Since, Until string
	// Q is the search box: a patient uuid or a message id (msg_...).
	Q string
}

// request reads the filters; an error's message says what to correct.
func (f filters) request(now time.Time) (operator.PageRequest, error) {
	client, dest := splitScope(f.Scope)
	r := operator.PageRequest{ClientID: client, Destination: dest, State: f.State, DataType: f.Type}
	switch q := strings.TrimSpace(f.Q); {
	case strings.HasPrefix(q, "msg_"):
		r.MessageID = q
	case q != "":
		r.PatientUUID = q
	}
	var err error
	if f.Since != "" {
		if r.Since, err = operator.ParseSince(f.Since, now); err != nil {
			return r, err
		}
	}
	if f.Until != "" {
		if r.Until, err = operator.ParseSince(f.Until, now); err != nil {
			return r, errors.New(strings.Replace(err.Error(), "since", "until", 1))
		}
	}
	return r, nil
}

type deliveriesPage struct {
	Filters  filters
	Scopes   []option
	States   []option
	Types    []option
	Since    time.Time // as resolved
	Until    time.Time
	Rows     []store.Delivery
	NextURL  string
	FirstURL string
	Older    bool // not the first page
	// ReplayURL offers a replay of the scope's failed deliveries.
	ReplayURL string
}

func newDeliveriesPage(cfg *config.Config, f filters, req operator.PageRequest, p operator.Page, older bool) deliveriesPage {
	out := deliveriesPage{Filters: f, Scopes: scopes(cfg, f.Scope), States: choices(f.State, store.Pending, store.Delivered, store.Failed),
		Types: choices(f.Type, "non-sensitive", "sensitive", "results-updated"), Since: req.Since, Until: req.Until, Rows: p.Deliveries, Older: older}
	// Later pages keep the resolved times: "1h" must not move under them.
	base := url.Values{}
	for k, v := range map[string]string{"scope": f.Scope, "state": f.State, "type": f.Type, "q": f.Q} {
		if v != "" {
			base.Set(k, v)
		}
	}
	if !req.Since.IsZero() {
		base.Set("since", req.Since.Format(time.RFC3339Nano))
	}
	if !req.Until.IsZero() {
		base.Set("until", req.Until.Format(time.RFC3339Nano))
	}
	out.FirstURL = scopeURL(deliveriesPath, "", base)
	if p.Next != "" {
		next := url.Values{"after": {p.Next}}
		for k, v := range base {
			next[k] = v
		}
		out.NextURL = scopeURL(deliveriesPath, "", next)
	}
	if f.State == "" || f.State == store.Failed {
		out.ReplayURL = scopeURL(replaysPath, f.Scope, url.Values{"since": {"24h"}})
	}
	return out
}

type deliveryPage struct {
	D         store.Delivery
	Attempts  []attemptRow
	CanReplay bool
	Scope     string
	ListURL   string
}

// attemptRow is one attempt, its answer as text: the template escapes it,
// so an answer holding HTML shows as the characters it is.
type attemptRow struct {
	store.Attempt
	Answer string
}

func newDeliveryPage(d store.Delivery, attempts []store.Attempt) deliveryPage {
	p := deliveryPage{D: d, CanReplay: d.State != store.Pending, Scope: d.Key.ClientID + "/" + d.Destination}
	p.ListURL = scopeURL(deliveriesPath, p.Scope, nil)
	for _, a := range attempts {
		p.Attempts = append(p.Attempts, attemptRow{Attempt: a, Answer: strings.ToValidUTF8(string(a.Response), "\uFFFD")})
	}
	return p
}

type replaysPage struct {
	Scopes     []option
	Scope      string
	Since      string    // as the operator wrote it
	From       time.Time // as resolved
	SinceExact string    // the form's since: the same time when confirmed
	Count      int
}

type auditPage struct {
	Actor, Action string
	Actions       []string
	Entries       []store.AuditEntry
	NextURL       string
	FirstURL      string
	Older         bool
}
