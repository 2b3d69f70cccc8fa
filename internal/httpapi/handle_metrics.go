package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// handleMetrics serves GET /metrics on the API's listener: 404 when the
// config's metrics.listen serves it elsewhere (MetricsElsewhere), and
// behind metrics.token when one is set.
func handleMetrics(d Deps) http.Handler {
	h := MetricsHandler(d)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.MetricsElsewhere {
			writeError(w, r, http.StatusNotFound, "Not found")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// MetricsHandler serves the metrics to a scraper that sends the config's
// metrics.token as a bearer token (anyone, when none is set): the
// handler of metrics.listen's own listener.
func MetricsHandler(d Deps) http.Handler {
	metrics := d.Metrics.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if want := d.Config().Metrics.Token; want != "" && !sameSecret(bearerOf(r), want) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			writeError(w, r, http.StatusUnauthorized, "Unauthorized")
			return
		}
		metrics.ServeHTTP(w, r)
	})
}

func bearerOf(r *http.Request) string {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	return tok
}

// sameSecret compares in constant time (of the digests, so the length of
// the secret is not timed either).
func sameSecret(got, want string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return got != "" && subtle.ConstantTimeCompare(a[:], b[:]) == 1
}
