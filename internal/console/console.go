// Package console is pads' operator console: HTML pages under /admin/,
// rendered on the server from embedded templates, with one embedded
// stylesheet and no script. An operator signs in with an admin id and
// key of the config, sees at a glance which destination is failing, why
// and since when, pages through deliveries and their attempts, replays
// them, and reads the audit log.
//
// Every page and action goes through internal/operator, the service
// behind the admin API and the CLI, which writes it to the audit log
// before it takes effect. Sessions live in this process's memory; every
// form carries the session's CSRF token; every response carries a strict
// Content-Security-Policy and is never cached. No page shows a value of a
// patient's record: the console reads deliveries' metadata and attempts,
// never payloads.
package console

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/metrics"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/store"
)

// The console's paths. The overview is Home; every other page is under
// Prefix, apart from the JSON admin API's paths (/admin/authenticate,
// /admin/deliveries, /admin/replays, /admin/audit).
const (
	Home   = "/admin/"
	Prefix = "/admin/console/"

	signInPath     = Prefix + "signin"
	deliveriesPath = Prefix + "deliveries"
	replaysPath    = Prefix + "replays"
	auditPath      = Prefix + "audit"
	// destinationsPath + "CLIENT/ID/test" sends a test event.
	destinationsPath = Prefix + "destinations/"
)

// The overview refreshes itself, without script, by a meta refresh to
// refreshURL: a request the console knows as automatic (see autoRefresh),
// so an open overview neither keeps its session alive nor writes an audit
// entry per refresh.
const (
	refreshEvery = 30 * time.Second
	refreshQuery = "refresh=auto"
	refreshURL   = Home + "?" + refreshQuery
)

// refreshContent is the overview's meta refresh: its own refresh every
// refreshEvery, or sooner, just past the inactivity logoff, when that
// comes first (the refresh then finds no session, and leaves for the
// sign-in form).
func refreshContent(idleLeft time.Duration) string {
	every := refreshEvery
	if left := idleLeft + time.Second; left < every {
		every = max(left, time.Second)
	}
	return strconv.Itoa(int(every/time.Second)) + ";url=" + refreshURL
}

// autoRefresh reports whether a request is the overview's own refresh,
// not an operator's doing.
func autoRefresh(r *http.Request) bool { return r.URL.RawQuery == refreshQuery }

// IsConsolePath reports whether a route's path is the console's (HTML for
// people, so not in docs/openapi.yaml): "/admin", the overview and
// everything under Prefix.
func IsConsolePath(path string) bool {
	return path == "/admin" || path == "/admin/{$}" || strings.HasPrefix(path, Prefix)
}

// Cookies: the session, and the sign-in form's own CSRF token.
const (
	sessionCookie = "pads_console"
	signInCookie  = "pads_console_signin"
)

// Bounds of what a request may make the console do.
const (
	maxForm      = 16 << 10 // bytes of a form body
	pageSize     = 50       // deliveries or audit entries per page
	signInWindow = 15 * time.Minute
)

// contentSecurityPolicy allows the page's own stylesheet and data: images
// (the favicon) and nothing else: no script at all, no frame, no form to
// another site, no <base>.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/*
var staticFS embed.FS

// Deps is everything the console needs.
type Deps struct {
	Operator *operator.Service
	// Config returns the config in force: its admins sign in, its
	// destinations are listed.
	Config func() *config.Config
	// Throttle slows down guessing of admin keys; it is the API's, so a
	// console sign-in and an admin token request count alike.
	Throttle *auth.Throttle
	Metrics  *metrics.Metrics // nil: not counted
	Logger   *slog.Logger
	Now      func() time.Time
	// Identify, when set, learns the operator of each signed-in request
	// (for the request log).
	Identify func(r *http.Request, actor string)
	// ClientAddr, when set, is the address a request comes from, as the
	// API's throttle keys it (trusted proxies' X-Forwarded-For believed);
	// else the TCP peer.
	ClientAddr func(r *http.Request) string
}

// Console serves the pages. Its sessions are this process's.
type Console struct {
	d        Deps
	sessions *sessions
	pages    map[string]*template.Template
}

// New returns the console. It does not use d until it serves a request.
func New(d Deps) *Console {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Console{d: d, sessions: newSessions(func() time.Time { return d.Now() }), pages: map[string]*template.Template{}}
	for _, name := range []string{"signin", "overview", "deliveries", "delivery", "replays", "audit", "error", "tested"} {
		c.pages[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS,
			"templates/layout.html", "templates/"+name+".html"))
	}
	return c
}

// view is what every page's template gets.
type view struct {
	Title  string
	Nav    string // the current section: overview, deliveries, audit
	Admin  string // the signed-in admin's id; "" on the sign-in page
	CSRF   string // the session's token, for the page's forms
	Now    time.Time
	Notice string
	Page   any // the page's own data
	// Refresh, when set, is the content of the page's meta refresh,
	// instead of the logoff's (see refreshContent).
	Refresh string
	// idleLeft is how long the session has before the inactivity logoff.
	idleLeft time.Duration
	// LogoffAfter is when, in seconds, the page leaves for the sign-in
	// form if the operator does nothing: just past the inactivity
	// timeout, so no patient's delivery stays on an unattended screen.
	LogoffAfter int

	actor     string // "console:<admin>"
	sessionID string
}

// page is a handler of a signed-in operator.
type page func(w http.ResponseWriter, r *http.Request, v *view)

// secure sets the headers of every console response.
func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// signedIn serves h to a signed-in operator, and sends anyone else to the
// sign-in page. A POST must carry the session's CSRF token and must not
// come from another site.
func (c *Console) signedIn(h page) http.Handler {
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, sess := c.session(r)
		if sess == nil {
			next := Home
			if r.Method == http.MethodGet && !autoRefresh(r) {
				next = r.URL.RequestURI()
			}
			http.Redirect(w, r, signInPath+"?next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		v := &view{Admin: sess.admin, CSRF: sess.csrf, Now: c.d.Now().UTC(), actor: "console:" + sess.admin, sessionID: id,
			LogoffAfter: int(c.idle()/time.Second) + 1, idleLeft: c.idle() - c.d.Now().Sub(sess.seen)}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
			if crossSite(r) || !sameToken(r.PostFormValue("csrf"), sess.csrf) {
				c.fail(w, r, v, http.StatusForbidden, "This form has expired or did not come from this console: reload the page and try again.")
				return
			}
		}
		if c.d.Identify != nil {
			c.d.Identify(r, v.actor)
		}
		h(w, r, v)
	}))
}

// session returns the request's live session and its id. A session whose
// admin was removed from the config ends, as does one idle for the
// config's console.inactivityTimeout.
func (c *Console) session(r *http.Request) (string, *session) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return "", nil
	}
	sess, ok := c.sessions.get(ck.Value, c.idle(), !autoRefresh(r))
	if !ok {
		return "", nil
	}
	if c.d.Config().Admin(sess.admin) == nil {
		c.sessions.end(ck.Value)
		return "", nil
	}
	return ck.Value, sess
}

// idle is the config's console.inactivityTimeout (its default for a config
// not loaded from a file).
func (c *Console) idle() time.Duration {
	if d := c.d.Config().Console.InactivityTimeout.D(); d > 0 {
		return d
	}
	return config.DefaultInactivityTimeout
}

// crossSite reports whether the browser says the request comes from
// another site (Sec-Fetch-Site); SameSite=Strict and the CSRF token stop
// such a request anyway.
func crossSite(r *http.Request) bool {
	s := r.Header.Get("Sec-Fetch-Site")
	return s != "" && s != "same-origin" && s != "none"
}

// render executes the page's template into a buffer, so a template error
// never sends half a page, then writes it.
func (c *Console) render(w http.ResponseWriter, r *http.Request, name string, status int, v *view) {
	var b bytes.Buffer
	if err := c.pages[name].Execute(&b, v); err != nil {
		c.d.Logger.Error("console: render", "page", name, "request_id", w.Header().Get("X-Request-Id"), "err", err)
		http.Error(w, "Internal server error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

type errorPage struct {
	Status    int
	Message   string
	RequestID string
}

// fail renders an error page with a message the operator can act on.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, v *view, status int, message string) {
	if v == nil {
		v = &view{Now: c.d.Now().UTC()}
	}
	v.Title = http.StatusText(status)
	v.Page = errorPage{Status: status, Message: message, RequestID: w.Header().Get("X-Request-Id")}
	c.render(w, r, "error", status, v)
}

// failed renders what an operator service error means: a request to
// correct (400, its message), no such delivery (404), or a fault (500,
// logged with the request id).
func (c *Console) failed(w http.ResponseWriter, r *http.Request, v *view, err error) {
	if ie, ok := operator.IsInvalid(err); ok {
		c.fail(w, r, v, http.StatusBadRequest, ie.Error())
		return
	}
	if errors.Is(err, store.ErrNotFound) {
		c.fail(w, r, v, http.StatusNotFound, "There is no such delivery.")
		return
	}
	if errors.Is(err, store.ErrBodyGone) {
		c.fail(w, r, v, http.StatusConflict, "This delivery's body was removed by retention: it cannot be sent again.")
		return
	}
	c.d.Logger.Error("console", "request_id", w.Header().Get("X-Request-Id"), "err", err)
	c.fail(w, r, v, http.StatusInternalServerError, "Something went wrong on the server; it is logged under this request id.")
}

// RedirectHome sends /admin to the overview.
func (c *Console) RedirectHome() http.Handler {
	return secure(http.RedirectHandler(Home, http.StatusMovedPermanently))
}

// Static serves the embedded stylesheet.
func (c *Console) Static() http.Handler {
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		b, err := fs.ReadFile(staticFS, "static/"+name)
		if err != nil || !strings.HasSuffix(name, ".css") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Write(b)
	}))
}

// SignInPage shows the sign-in form (or, to a signed-in operator, the
// overview).
func (c *Console) SignInPage() http.Handler {
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, sess := c.session(r); sess != nil {
			http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
			return
		}
		notice := ""
		if r.URL.Query().Has("signedout") {
			notice = "Signed out."
		}
		c.signInForm(w, r, http.StatusOK, notice, "", "")
	}))
}

type signInPage struct {
	Next     string
	Username string
	Error    string
}

// signInForm renders the form with a fresh token of its own, set in a
// short-lived cookie: the sign-in form, too, carries a CSRF token.
func (c *Console) signInForm(w http.ResponseWriter, r *http.Request, status int, notice, username, problem string) {
	token := randomToken()
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: token, Path: signInPath, MaxAge: int(signInWindow / time.Second),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	v := &view{Title: "Sign in", CSRF: token, Now: c.d.Now().UTC(), Notice: notice,
		Page: signInPage{Next: safeNext(r.URL.Query().Get("next")), Username: username, Error: problem}}
	c.render(w, r, "signin", status, v)
}

// SignIn checks an admin's id and key, as POST /admin/authenticate does
// (constant time, throttled per id and address), audits the sign-in, and
// opens a session lasting the config's tokenTTL.
func (c *Console) SignIn() http.Handler {
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		ck, err := r.Cookie(signInCookie)
		if err != nil || crossSite(r) || !sameToken(r.PostFormValue("csrf"), ck.Value) {
			c.observe("bad_request")
			c.fail(w, r, nil, http.StatusForbidden, "The sign-in form has expired or did not come from this console: reload it and try again (cookies must be on).")
			return
		}
		user, key := r.PostFormValue("username"), r.PostFormValue("key")
		addr := c.clientAddr(r)
		if wait, blocked := c.d.Throttle.Blocked(user, addr); blocked {
			c.observe("throttled")
			w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
			c.signInForm(w, r, http.StatusTooManyRequests, "", user,
				"Too many failed sign-ins: try again in "+wait.Round(time.Second).String()+".")
			return
		}
		cfg := c.d.Config()
		var digests [][32]byte
		if a := cfg.Admin(user); a != nil {
			digests = a.KeyDigests()
		}
		if !auth.MatchKey(digests, key) {
			c.d.Throttle.Fail(user, addr)
			c.observe("unauthorized")
			c.signInForm(w, r, http.StatusUnauthorized, "", user, "Unknown operator or wrong key.")
			return
		}
		c.d.Throttle.Succeed(user, addr)
		actor := "console:" + user
		if c.d.Identify != nil {
			c.d.Identify(r, actor)
		}
		if err := c.d.Operator.SignIn(r.Context(), actor); err != nil {
			c.failed(w, r, nil, err)
			return
		}
		ttl := cfg.TokenTTL.D()
		id, _ := c.sessions.open(user, ttl)
		http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: "", Path: signInPath, MaxAge: -1,
			HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
		http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: Home, MaxAge: int(ttl / time.Second),
			HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
		c.observe("ok")
		c.d.Logger.LogAttrs(r.Context(), slog.LevelInfo, "console sign-in", slog.String("request_id", w.Header().Get("X-Request-Id")),
			slog.String("admin", user))
		http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
	}))
}

func (c *Console) observe(outcome string) {
	if c.d.Metrics != nil {
		c.d.Metrics.ObserveLogin("console", outcome)
	}
}

// SignOut audits the sign-out, ends the session and drops its cookie.
func (c *Console) SignOut() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		if err := c.d.Operator.SignOut(r.Context(), v.actor); err != nil {
			c.failed(w, r, v, err)
			return
		}
		c.sessions.end(v.sessionID)
		http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: Home, MaxAge: -1,
			HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, signInPath+"?signedout=1", http.StatusSeeOther)
	})
}

// safeNext is where to go after signing in: a console path, never
// another site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(next, Home) || strings.ContainsAny(next, "\\\r\n") {
		return Home
	}
	return next
}

// clientAddr is the caller's address, as the API's throttle keys it.
func (c *Console) clientAddr(r *http.Request) string {
	if c.d.ClientAddr != nil {
		return c.d.ClientAddr(r)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Overview shows the health of every destination and the deliveries of
// each minute.
func (c *Console) Overview() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		cfg := c.d.Config()
		overview := c.d.Operator.Overview
		if autoRefresh(r) {
			overview = c.d.Operator.OverviewRefresh
		}
		o, err := overview(r.Context(), v.actor, configured(cfg))
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		v.Title, v.Nav, v.Page = "Overview", "overview", newOverviewPage(o, cfg)
		v.Refresh = refreshContent(v.idleLeft)
		c.render(w, r, "overview", http.StatusOK, v)
	})
}

// configured lists the destinations of the config.
func configured(cfg *config.Config) []store.DestinationRef {
	var refs []store.DestinationRef
	for _, cl := range cfg.Clients {
		for _, d := range cl.Destinations {
			refs = append(refs, store.DestinationRef{ClientID: cl.ID, ID: d.ID})
		}
	}
	return refs
}

// Deliveries lists deliveries by filter, a keyset page at a time.
func (c *Console) Deliveries() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		q := r.URL.Query()
		f := filters{Scope: q.Get("scope"), State: q.Get("state"), Type: q.Get("type"), Since: q.Get("since"), Until: q.Get("until"),
			Q: q.Get("q")}
		req, err := f.request(v.Now)
		if err != nil {
			c.fail(w, r, v, http.StatusBadRequest, err.Error())
			return
		}
		req.After, req.Limit = q.Get("after"), pageSize
		p, err := c.d.Operator.Page(r.Context(), v.actor, req)
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		if n, err := strconv.Atoi(q.Get("replayed")); err == nil {
			v.Notice = plural(n, "delivery", "deliveries") + " replayed: made pending again, under the same message ids, as new attempt series."
		}
		v.Title, v.Nav, v.Page = "Deliveries", "deliveries", newDeliveriesPage(c.d.Config(), f, req, p, q.Get("after") != "")
		c.render(w, r, "deliveries", http.StatusOK, v)
	})
}

// Delivery shows a delivery's metadata and every attempt.
func (c *Console) Delivery() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id <= 0 {
			c.fail(w, r, v, http.StatusNotFound, "There is no such delivery.")
			return
		}
		d, attempts, err := c.d.Operator.Show(r.Context(), v.actor, id)
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		switch r.URL.Query().Get("replayed") {
		case "1":
			v.Notice = "Replayed: the delivery was made pending again, under the same message id, as a new attempt series."
		case "0":
			v.Notice = "Not replayed: the delivery was pending already."
		}
		v.Title, v.Nav, v.Page = "Delivery "+strconv.FormatInt(id, 10), "deliveries", newDeliveryPage(d, attempts)
		c.render(w, r, "delivery", http.StatusOK, v)
	})
}

// Replay replays one delivery, as `pads deliveries replay ID` does.
func (c *Console) Replay() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id <= 0 {
			c.fail(w, r, v, http.StatusNotFound, "There is no such delivery.")
			return
		}
		n, err := c.d.Operator.Replay(r.Context(), v.actor, id)
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		http.Redirect(w, r, deliveriesPath+"/"+strconv.FormatInt(id, 10)+"?replayed="+strconv.Itoa(n), http.StatusSeeOther)
	})
}

// ConfirmReplay says how many failed deliveries a replay would take, and
// offers it.
func (c *Console) ConfirmReplay() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		q := r.URL.Query()
		scope, since := q.Get("scope"), q.Get("since")
		if since == "" {
			since = "24h"
		}
		sel, err := selection(scope, since, v.Now)
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		n, err := c.d.Operator.CountFailed(r.Context(), v.actor, sel)
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		v.Title, v.Nav = "Replay failed deliveries", "deliveries"
		v.Page = replaysPage{Scopes: scopes(c.d.Config(), scope), Scope: scope, Since: since, From: sel.Since,
			SinceExact: sel.Since.Format(time.RFC3339Nano), Count: n}
		c.render(w, r, "replays", http.StatusOK, v)
	})
}

// ReplayFailed replays the failed deliveries of a client or destination
// since a time, as `pads deliveries replay --failed` does.
func (c *Console) ReplayFailed() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		scope := r.PostFormValue("scope")
		sel, err := selection(scope, r.PostFormValue("since"), v.Now)
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		n, err := c.d.Operator.ReplayFailedOf(r.Context(), v.actor, sel)
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		http.Redirect(w, r, deliveriesPath+"?"+url.Values{"scope": {scope}, "replayed": {strconv.Itoa(n)}}.Encode(), http.StatusSeeOther)
	})
}

// selection reads a replay's scope ("", "client" or "client/destination")
// and since (an RFC 3339 time or a duration ago).
func selection(scope, since string, now time.Time) (operator.FailedSelection, error) {
	from, err := operator.ParseSince(since, now)
	if err != nil {
		return operator.FailedSelection{}, err
	}
	client, dest := splitScope(scope)
	return operator.FailedSelection{Since: from, ClientID: client, Destination: dest}, nil
}

// Audit pages through the audit log by actor and action.
func (c *Console) Audit() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		q := r.URL.Query()
		var before int64
		if s := q.Get("before"); s != "" {
			var err error
			if before, err = strconv.ParseInt(s, 10, 64); err != nil || before <= 0 {
				c.fail(w, r, v, http.StatusBadRequest, "before must be the next page's position as given.")
				return
			}
		}
		actor, action := q.Get("actor"), q.Get("action")
		entries, next, err := c.d.Operator.AuditPage(r.Context(), v.actor, operator.AuditRequest{Actor: actor, Action: action, Before: before, Limit: pageSize})
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		p := auditPage{Actor: actor, Action: action, Actions: operator.Actions, Entries: entries, Older: before != 0}
		if next != 0 {
			p.NextURL = auditPath + "?" + url.Values{"actor": {actor}, "action": {action}, "before": {strconv.FormatInt(next, 10)}}.Encode()
		}
		p.FirstURL = auditPath + "?" + url.Values{"actor": {actor}, "action": {action}}.Encode()
		v.Title, v.Nav, v.Page = "Audit log", "audit", p
		c.render(w, r, "audit", http.StatusOK, v)
	})
}

// testedPage is a test send's outcome.
type testedPage struct {
	store.DestinationRef
	Host   string
	Result operator.TestResult
}

// TestDestination sends a test event to a destination, as `pads
// destinations test` does, and shows the answer.
func (c *Console) TestDestination() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		ref := store.DestinationRef{ClientID: r.PathValue("client"), ID: r.PathValue("id")}
		d := c.d.Config().Destination(ref.ClientID, ref.ID)
		res, err := c.d.Operator.TestSend(r.Context(), v.actor, ref)
		if errors.Is(err, operator.ErrNoDestination) || d == nil {
			c.fail(w, r, v, http.StatusNotFound, "There is no such destination in the config.")
			return
		}
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		v.Title, v.Nav, v.Page = "Test event", "overview", testedPage{DestinationRef: ref, Host: d.Host(), Result: res}
		c.render(w, r, "tested", http.StatusOK, v)
	})
}

// PauseDestination pauses a destination, as `pads destinations pause`
// does, and goes back to the overview.
func (c *Console) PauseDestination() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		ref := store.DestinationRef{ClientID: r.PathValue("client"), ID: r.PathValue("id")}
		_, err := c.d.Operator.PauseDestination(r.Context(), v.actor, ref, r.PostFormValue("reason"))
		if errors.Is(err, operator.ErrNoDestination) {
			c.fail(w, r, v, http.StatusNotFound, "There is no such destination in the config.")
			return
		}
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		http.Redirect(w, r, Home+"#dest-"+ref.ClientID+"-"+ref.ID, http.StatusSeeOther)
	})
}

// ResumeDestination resumes a destination, as `pads destinations resume`
// does, and goes back to the overview.
func (c *Console) ResumeDestination() http.Handler {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *view) {
		ref := store.DestinationRef{ClientID: r.PathValue("client"), ID: r.PathValue("id")}
		if _, err := c.d.Operator.ResumeDestination(r.Context(), v.actor, ref); err != nil {
			c.failed(w, r, v, err)
			return
		}
		http.Redirect(w, r, Home+"#dest-"+ref.ClientID+"-"+ref.ID, http.StatusSeeOther)
	})
}
