// Package metrics holds pads' Prometheus metrics on a registry of its own
// (no global state, so tests can run several servers in one process).
//
// Labels carry route patterns, statuses and outcomes only: never a client's
// data, and never anything a caller can choose freely (which would let one
// caller grow the series without bound).
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the service's instruments.
type Metrics struct {
	Registry *prometheus.Registry

	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	saveBatch  prometheus.Histogram
	commit     *prometheus.HistogramVec
	saves      *prometheus.CounterVec
	logins     *prometheus.CounterVec
	configLoad *prometheus.CounterVec
	attempts   *prometheus.CounterVec
	attemptDur *prometheus.HistogramVec
	dests      *destinations
}

// New returns metrics registered on a new registry, with the Go runtime and
// process collectors.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pads_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route"}),
		saveBatch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "pads_save_batch_size",
			Help:    "Saves committed by one database transaction (group commit).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
		commit: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pads_db_commit_duration_seconds",
			Help:    "Time of one group-commit transaction, its sync to disk included, by outcome (ok, failed).",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}, []string{"outcome"}),
		saves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_saves_total",
			Help: "Records saved, by data type and result (created, updated).",
		}, []string{"data_type", "result"}),
		logins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_logins_total",
			Help: "Authentication attempts, by audience and outcome (ok, unauthorized, throttled, bad_request).",
		}, []string{"audience", "outcome"}),
		configLoad: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_config_reloads_total",
			Help: "Config reloads on SIGHUP, by outcome (ok, rejected).",
		}, []string{"outcome"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_delivery_attempts_total",
			Help: "Delivery attempts, by destination type and outcome (delivered, retry, failed).",
		}, []string{"type", "outcome"}),
		attemptDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pads_delivery_attempt_duration_seconds",
			Help:    "Time of one delivery attempt, by destination type.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"type"}),
	}
	m.dests = newDestinations()
	m.Registry.MustRegister(m.dests.attempts, m.dests.latency, m.dests.redFlags)
	m.Registry.MustRegister(m.requests, m.latency, m.saveBatch, m.commit, m.saves, m.logins, m.configLoad, m.attempts, m.attemptDur,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// ObserveRequest counts one answered request.
func (m *Metrics) ObserveRequest(route, method string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// ObserveSaveBatch records the size of one committed batch.
func (m *Metrics) ObserveSaveBatch(n int) { m.saveBatch.Observe(float64(n)) }

// ObserveCommit records one group-commit transaction.
func (m *Metrics) ObserveCommit(d time.Duration, ok bool) {
	outcome := "ok"
	if !ok {
		outcome = "failed"
	}
	m.commit.WithLabelValues(outcome).Observe(d.Seconds())
}

// ObserveSave counts one saved record.
func (m *Metrics) ObserveSave(dataType string, created bool) {
	result := "updated"
	if created {
		result = "created"
	}
	m.saves.WithLabelValues(dataType, result).Inc()
}

// ObserveLogin counts one authentication attempt.
func (m *Metrics) ObserveLogin(audience, outcome string) {
	m.logins.WithLabelValues(audience, outcome).Inc()
}

// ObserveAttempt counts one delivery attempt.
func (m *Metrics) ObserveAttempt(destinationType, outcome string, d time.Duration) {
	m.attempts.WithLabelValues(destinationType, outcome).Inc()
	m.attemptDur.WithLabelValues(destinationType).Observe(d.Seconds())
}

// ObserveConfigReload counts one reload.
func (m *Metrics) ObserveConfigReload(ok bool) {
	if ok {
		m.configLoad.WithLabelValues("ok").Inc()
	} else {
		m.configLoad.WithLabelValues("rejected").Inc()
	}
}
