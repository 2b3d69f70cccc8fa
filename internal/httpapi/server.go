// Package httpapi is pads' HTTP surface: routes.go lists every endpoint,
// each handler is a maker function taking exactly what it uses, and every
// error leaves through writeError in the contract's shape.
package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/metrics"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/save"
	"github.com/pads-dev/pads/internal/store"
)

// Deps is everything the API needs; NewServer takes nothing else.
type Deps struct {
	Logger *slog.Logger
	// Config returns the config in force; it changes on reload.
	Config func() *config.Config
	Tokens *auth.Tokens
	// Revocations are the clients' revoked tokens; nil revokes none.
	Revocations *auth.Revocations
	Throttle    *auth.Throttle
	Store       store.Store
	Saves       *save.Service
	Operator    *operator.Service
	Metrics     *metrics.Metrics
	Now         func() time.Time
	// ServiceName names the smile authenticate route; fixed at start.
	ServiceName string
	// MetricsElsewhere: the config's metrics.listen serves /metrics, so
	// the API's listener does not; fixed at start.
	MetricsElsewhere bool
}

// NewServer returns the whole API as one handler.
func NewServer(d Deps) http.Handler {
	mux := http.NewServeMux()
	addRoutes(&router{mux: mux, allow: map[string][]string{}}, d)
	return withRequestInfo(d.Config, observe(d.Logger, d.Metrics, recoverPanics(d.Logger, mux)))
}
