package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/pads-dev/pads/internal/config"
)

// serveMetrics serves GET /metrics alone on the config's metrics.listen
// (for instance an address only the monitoring network reaches), with the
// API's timeouts; stop shuts it down.
func (a *app) serveMetrics(cfg *config.Config) (stop func(), err error) {
	ln, err := net.Listen("tcp", cfg.Metrics.Listen)
	if err != nil {
		return nil, fmt.Errorf("metrics.listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.metricsHandler)
	srv := newHTTPServer(mux, cfg.Limits)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.logger.Error("metrics listener", "err", err.Error())
		}
	}()
	a.logger.Info("metrics listening", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}, nil
}
