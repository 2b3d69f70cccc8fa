// Package reload puts a changed config file in force in a running pads:
// on SIGHUP it reads the file again, rejects it whole when it is invalid
// (or its TLS certificate does not load), warns about the keys that take
// effect only at a restart, and otherwise hands the new config to the
// process (Apply) and swaps the TLS certificate. pads reload asks for the
// same over a Unix socket in the data directory (OnSocket, Request) and
// hears the outcome.
package reload

import (
	"crypto/tls"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"

	"github.com/pads-dev/pads/internal/config"
)

// Reloader reloads one process's config file.
type Reloader struct {
	// Path and Getenv read the file, as at the start.
	Path   string
	Getenv func(string) string
	// Started is the config the process started with: the keys that shape
	// the process itself are compared to it.
	Started *config.Config
	// Current returns the config in force (its listen address is kept).
	Current func() *config.Config
	// Cert is the certificate served, nil without TLS.
	Cert *Certificate
	// Apply puts a new, valid config in force.
	Apply   func(cfg *config.Config)
	Log     *slog.Logger
	Observe func(ok bool) // counts reloads, accepted or rejected

	mu sync.Mutex // one reload at a time
}

// OnHUP reloads on every SIGHUP until the returned stop is called. SIGHUP
// is caught from the moment it returns: without it, a SIGHUP would end the
// process (the signal's default).
func (r *Reloader) OnHUP() (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-hup:
				r.Reload()
			}
		}
	}()
	return func() { signal.Stop(hup); close(done) }
}

// Reload reads the file again and puts it in force, or rejects it (the
// reason logged, the config in force kept) and returns false.
func (r *Reloader) Reload() bool {
	_, err := r.Report()
	return err == nil
}

// Report is Reload that says why: err is why the file was rejected (a
// *config.Problems for a wrong file), notes what the new config changes
// only at the next restart. One reload runs at a time: SIGHUP and pads
// reload may come together.
func (r *Reloader) Report() (notes []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cfg, err := config.Load(r.Path, r.Getenv)
	if err != nil {
		return nil, r.reject(err)
	}
	cfg.Listen = r.Current().Listen
	var cert *tls.Certificate
	switch {
	case r.Cert != nil && cfg.TLS.Enabled():
		if cert, err = loadPair(cfg.TLS); err != nil {
			return nil, r.reject(err)
		}
	case r.Cert != nil || cfg.TLS.Enabled():
		notes = append(notes, "turning tls on or off takes effect at the next restart")
	}
	notes = append(notes, r.restartOnly(cfg)...)
	for _, n := range notes {
		r.Log.Warn("config reload: " + n)
	}
	if cert != nil {
		r.Cert.current.Store(cert)
		r.Log.Info("tls certificate reloaded", "cert_file", cfg.TLS.CertFile, "not_after", notAfter(cert))
	}
	r.Apply(cfg)
	r.Observe(true)
	r.Log.Info("config reloaded", "clients", len(cfg.Clients))
	return notes, nil
}

func (r *Reloader) reject(err error) error {
	r.Observe(false)
	r.Log.Error("config reload rejected; the previous config stays in force", "err", err.Error())
	return err
}

// restartOnly names the keys of cfg that differ from the start and take
// effect only at the next restart.
func (r *Reloader) restartOnly(cfg *config.Config) []string {
	var notes []string
	s := r.Started
	if cfg.DataDir != s.DataDir || cfg.Database != s.Database || cfg.ServiceName != s.ServiceName ||
		!slices.Equal(cfg.Secrets.JWTKeys, s.Secrets.JWTKeys) || !slices.Equal(cfg.Secrets.EncryptionKeys, s.Secrets.EncryptionKeys) {
		notes = append(notes, "dataDir, database, serviceName, listen and secrets take effect at the next restart")
	}
	a, b := cfg.Limits, s.Limits
	if a.ReadHeaderTimeout != b.ReadHeaderTimeout || a.ReadTimeout != b.ReadTimeout ||
		a.WriteTimeout != b.WriteTimeout || a.IdleTimeout != b.IdleTimeout {
		notes = append(notes, "limits.readHeaderTimeout, readTimeout, writeTimeout and idleTimeout take effect at the next restart")
	}
	return notes
}
