package httpapi

import (
	"net/http"
	"strings"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/console"
	"github.com/pads-dev/pads/internal/metrics"
)

// addRoutes is the whole API surface.
func addRoutes(rt *router, d Deps) {
	rt.handle("POST", "/storage/authenticate", handleAuthenticate(d, auth.AudienceStorage))
	rt.handle("POST", "/"+d.ServiceName+"Smile/authenticate", handleAuthenticate(d, auth.AudienceSmile))
	rt.handle("POST", "/patient/savePatientData", handleSave(d, &saveLimits{}))
	rt.handle("POST", "/admin/authenticate", handleAdminAuthenticate(d))
	rt.handle("GET", "/admin/deliveries", admin(d, handleListDeliveries(d)))
	rt.handle("GET", "/admin/deliveries/{id}", admin(d, handleShowDelivery(d)))
	rt.handle("POST", "/admin/deliveries/{id}/replay", admin(d, handleReplayDelivery(d)))
	rt.handle("POST", "/admin/replays", admin(d, handleReplayFailed(d)))
	rt.handle("GET", "/admin/audit", admin(d, handleAuditLog(d)))
	rt.handle("POST", "/admin/erasures", admin(d, handleErase(d)))
	rt.handle("POST", "/admin/patient-deliveries", admin(d, handleDeliverPatient(d)))
	rt.handle("GET", "/admin/destinations", admin(d, handleListDestinations(d)))
	rt.handle("POST", "/admin/destinations/{client}/{id}/test", admin(d, handleTestDestination(d)))
	rt.handle("POST", "/admin/destinations/{client}/{id}/pause", admin(d, handlePauseDestination(d)))
	rt.handle("POST", "/admin/destinations/{client}/{id}/resume", admin(d, handleResumeDestination(d)))
	// The operator console: HTML pages for people, not in docs/openapi.yaml
	// (console.IsConsolePath); its forms post to the console's own paths.
	c := newConsole(d)
	rt.handle("GET", "/admin", c.RedirectHome())
	rt.handle("GET", "/admin/{$}", c.Overview())
	rt.handle("GET", "/admin/console/signin", c.SignInPage())
	rt.handle("POST", "/admin/console/signin", c.SignIn())
	rt.handle("POST", "/admin/console/signout", c.SignOut())
	rt.handle("GET", "/admin/console/deliveries", c.Deliveries())
	rt.handle("GET", "/admin/console/deliveries/{id}", c.Delivery())
	rt.handle("POST", "/admin/console/deliveries/{id}/replay", c.Replay())
	rt.handle("GET", "/admin/console/replays", c.ConfirmReplay())
	rt.handle("POST", "/admin/console/replays", c.ReplayFailed())
	rt.handle("GET", "/admin/console/audit", c.Audit())
	rt.handle("POST", "/admin/console/destinations/{client}/{id}/test", c.TestDestination())
	rt.handle("POST", "/admin/console/destinations/{client}/{id}/pause", c.PauseDestination())
	rt.handle("POST", "/admin/console/destinations/{client}/{id}/resume", c.ResumeDestination())
	rt.handle("GET", "/admin/console/static/{file}", c.Static())
	rt.handle("GET", "/openapi.yaml", handleOpenAPI())
	rt.handle("GET", "/healthz", handleHealthz())
	rt.handle("GET", "/readyz", handleReadyz(d.Store))
	rt.handle("GET", "/metrics", handleMetrics(d))
	rt.finish()
}

// newConsole is the operator console over the API's own dependencies: the
// same operator service, config, and login throttle.
func newConsole(d Deps) *console.Console {
	return console.New(console.Deps{Operator: d.Operator, Config: d.Config, Throttle: d.Throttle, Metrics: d.Metrics,
		Logger: d.Logger, Now: d.Now, Identify: func(r *http.Request, actor string) {
			if info := infoFrom(r.Context()); info != nil {
				info.client = actor
			}
		}, ClientAddr: remoteHost})
}

// Routes lists "METHOD /path" of every route of a server with the given
// service name, for documentation checks.
func Routes(serviceName string) []string {
	rt := &router{mux: http.NewServeMux(), allow: map[string][]string{}}
	d := Deps{ServiceName: serviceName, Metrics: metrics.New()}
	var out []string
	rt.record = func(pattern string) { out = append(out, pattern) }
	addRoutes(rt, d)
	return out
}

// router registers each route with its method, answers other methods on a
// known path with 405 and an Allow header, and anything else with 404, all
// in the contract's JSON error shape (ServeMux's own replies are plain text).
type router struct {
	mux    *http.ServeMux
	allow  map[string][]string
	record func(pattern string) // when set, only lists routes
}

func (rt *router) handle(method, path string, h http.Handler) {
	pattern := method + " " + path
	if rt.record != nil {
		rt.record(pattern)
		return
	}
	rt.mux.Handle(pattern, named(pattern, h))
	rt.allow[path] = append(rt.allow[path], method)
}

func (rt *router) finish() {
	if rt.record != nil {
		return
	}
	for path, methods := range rt.allow {
		allow := strings.Join(methods, ", ")
		if strings.Contains(allow, "GET") {
			allow += ", HEAD"
		}
		rt.mux.Handle(path, named(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, r, http.StatusMethodNotAllowed, "Method not allowed")
		})))
	}
	rt.mux.Handle("/", named("unmatched", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, http.StatusNotFound, "Not found")
	})))
}

// named records the route pattern for the request log and metrics: a fixed
// label per route, never the raw path a caller chose.
func named(pattern string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoFrom(r.Context()); info != nil {
			info.route = pattern
		}
		h.ServeHTTP(w, r)
	})
}
