package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pads-dev/pads/internal/auth"
	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/notify"
	"github.com/pads-dev/pads/internal/deliver/sns"
	"github.com/pads-dev/pads/internal/deliver/webhook"
	"github.com/pads-dev/pads/internal/httpapi"
	"github.com/pads-dev/pads/internal/metrics"
	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/reload"
	"github.com/pads-dev/pads/internal/retention"
	"github.com/pads-dev/pads/internal/save"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/snapshot"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/sqlite"
)

// shutdownGrace bounds how long in-flight requests may finish after SIGTERM.
const shutdownGrace = 15 * time.Second

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stdout, stderr)
	configPath := fs.String("config", "", "config file (default: the starter config in --data-dir, written on first start)")
	dataDir := fs.String("data-dir", config.DefaultDataDir, "without --config: where the starter config, its secrets and database live")
	listen := fs.String("listen", "", "listen address, overriding the config's listen")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageOf(fs.FlagSet)
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))

	path := *configPath
	if path == "" {
		p, key, created, err := config.Starter(*dataDir, getenv(listenAddrEnv))
		if err != nil {
			return err
		}
		if created {
			logger.Warn("generated new secrets; back this file up: losing it loses every stored record",
				"file", filepath.Join(*dataDir, config.SecretsFile))
		}
		if key != "" {
			printStarter(stdout, p, key)
		}
		path = p
	}
	cfg, err := config.Load(path, getenv)
	if err != nil {
		return err
	}
	warnConfig(logger, cfg)
	if *listen != "" {
		cfg.Listen = *listen
	}
	unlock, err := lockDatabase(cfg)
	if err != nil {
		return err
	}
	defer unlock()
	app, err := assemble(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer app.store.Close()
	if cfg.TLS.Enabled() {
		if app.cert, err = reload.LoadCertificate(cfg.TLS); err != nil {
			return err
		}
		logger.Info("serving TLS", "cert_file", cfg.TLS.CertFile, "not_after", app.cert.NotAfter())
	}
	tcp, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	ln := app.limitConnections(tcp, cfg)
	if app.cert != nil {
		ln = app.cert.Listener(ln)
	}
	if cfg.Metrics.Listen != "" {
		stop, err := app.serveMetrics(cfg)
		if err != nil {
			return err
		}
		defer stop()
	}
	app.dispatcher.Start()
	app.revocations.Start()
	defer app.revocations.Stop()
	app.sweeper.Start()
	defer app.sweeper.Stop()
	// Runs before the store closes (defers run last in, first out):
	// attempts under way may finish, each bounded by its destination's
	// timeout; the rest are retried after the restart.
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deliveryGrace)
		defer cancel()
		app.dispatcher.Stop(dctx)
		app.watch.notifier.Stop()
	}()
	return app.serveHTTP(ctx, ln, path, getenv, cfg)
}

// serveHTTP serves the API on ln until ctx ends, reloading the config on
// SIGHUP, then shuts the server down gracefully.
func (a *app) serveHTTP(ctx context.Context, ln net.Listener, path string, getenv func(string) string, cfg *config.Config) error {
	srv := newHTTPServer(a.handler, cfg.Limits)
	// SIGHUP is caught before pads says it listens: a SIGHUP that came
	// first would otherwise end the process (the signal's default).
	r := &reload.Reloader{Path: path, Getenv: getenv, Started: cfg, Current: a.live.Load, Cert: a.cert, Apply: a.apply,
		Log: a.logger, Observe: a.metrics.ObserveConfigReload}
	stopReload := r.OnHUP()
	defer stopReload()
	sock := filepath.Join(cfg.DataDir, reload.SocketFile)
	if stopSocket, err := r.OnSocket(sock); err != nil {
		a.logger.Warn("pads reload is unavailable for this process; SIGHUP still reloads", "socket", sock, "err", err.Error())
	} else {
		defer stopSocket()
	}
	a.logger.Info("listening", "addr", ln.Addr().String(), "tls", a.cert != nil, "config", path, "version", version)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		a.logger.Warn("shutdown", "err", err)
	}
	return nil
}

// maxHeaderBytes bounds a request's headers (net/http allows 4 KiB more);
// past it, 431 Request Header Fields Too Large.
const maxHeaderBytes = 32 << 10

// newHTTPServer is the API's http.Server. Each of its timeouts cuts off a
// kind of hostile or broken client (docs/operations.md): headers sent too
// slowly or never (ReadHeaderTimeout, also the bound of a TLS handshake), a
// body trickled in (ReadTimeout: the whole request), a client that does not
// read its answer (WriteTimeout), a connection left idle (IdleTimeout).
// They take effect at the start: a reload does not change them.
func newHTTPServer(h http.Handler, l config.Limits) *http.Server {
	var http1 http.Protocols
	http1.SetHTTP1(true)
	return &http.Server{
		Protocols:         &http1,
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout.D(),
		ReadTimeout:       l.ReadTimeout.D(),
		WriteTimeout:      l.WriteTimeout.D(),
		IdleTimeout:       l.IdleTimeout.D(),
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
}

// limitConnections bounds the connections of ln to limits.maxConnections
// (changed by a reload) and reports them in the metrics. It warns when the
// process may not open that many files.
func (a *app) limitConnections(ln net.Listener, cfg *config.Config) net.Listener {
	a.conns = httpapi.NewListener(ln, cfg.Limits.MaxConnections, cfg.Limits.MaxConnectionsPerAddress)
	a.conns.SetExempt(func(addr netip.Addr) bool { return a.live.Load().TrustedProxy(addr) })
	a.metrics.RegisterConnections(a.conns.Open, a.conns.Refused)
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil && rl.Cur < uint64(cfg.Limits.MaxConnections)+fileHeadroom {
		a.logger.Warn("the open-file limit is below limits.maxConnections plus what pads needs besides; raise it (LimitNOFILE, ulimit -n) or lower limits.maxConnections",
			"open_files", rl.Cur, "max_connections", cfg.Limits.MaxConnections)
	}
	return a.conns
}

// fileHeadroom is the files pads needs besides client connections: the
// database, its pool, outbound deliveries.
const fileHeadroom = 512

// deliveryGrace bounds how long shutdown waits for delivery attempts.
const deliveryGrace = config.MaxTimeout + 5*time.Second

// app is one assembled pads process.
type app struct {
	logger     *slog.Logger
	live       atomic.Pointer[config.Config]
	dests      *deliver.Destinations // made from live
	throttle   *auth.Throttle
	metrics    *metrics.Metrics
	store      store.Store
	dispatcher *deliver.Dispatcher
	watch      *watcher // attempts -> metrics by destination, operator events
	handler    http.Handler
	// metricsHandler serves metrics.listen's listener, when there is one.
	metricsHandler http.Handler
	conns          *httpapi.Listener // set when pads listens
	// revocations are the clients' revoked tokens, read again every
	// auth.RevocationRefresh while pads serves.
	revocations *auth.Revocations
	// sweeper removes what retention says has expired, in the background.
	sweeper *retention.Sweeper
	// cert is the TLS certificate served, nil without TLS.
	cert *reload.Certificate
}

func assemble(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*app, error) {
	keys, err := loadKeys(cfg, logger)
	if err != nil {
		return nil, err
	}
	tokens, err := auth.NewTokens(cfg.ServiceName, authKeys(keys.JWT), time.Now)
	if err != nil {
		return nil, err
	}
	a := &app{logger: logger, metrics: metrics.New()}
	a.live.Store(cfg)
	a.throttle = auth.NewThrottle(cfg.Limits.LoginFailures, cfg.Limits.LoginWindow.D(), time.Now)
	a.store, err = openStore(ctx, cfg, keys, a.metrics, logger)
	if err != nil {
		return nil, err
	}
	senders := map[string]deliver.Sender{
		"webhook": webhook.NewSender(cfg.ServiceName, version),
		"sns":     sns.NewSender(),
	}
	a.dests = deliver.NewDestinations(cfg, senders)
	a.metrics.SetDestinations(destinationPairs(cfg))
	a.watch = newWatcher(a.metrics, a.live.Load, senders["webhook"], logger)
	a.dispatcher = deliver.NewDispatcher(a.store, a.dests.Resolve, senders, logger, a.metrics, deliver.Options{
		Lease:              cfg.Limits.DeliveryLease.D(),
		Unordered:          a.dests.Unordered,
		ClientDestinations: a.dests.OfClient,
		Pauses:             a.store,
		MaxPerSecond:       a.dests.MaxPerSecond,
		Reported:           a.watch.report,
	})
	a.metrics.RegisterQueue(func() (int, int, time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		st, err := a.store.OutboxStats(ctx, time.Now())
		// A claimed delivery waiting in this process's line is due too,
		// though the store has moved its next attempt to its lease's end.
		return st.Pending, st.Failed, max(st.OldestDue, a.dispatcher.OldestWaiting()), err
	})
	// Revoked tokens: read before serving, then every few seconds.
	a.revocations = auth.NewRevocations(a.store.TokenRevocations, auth.RevocationRefresh, logger)
	if err := a.revocations.Refresh(ctx); err != nil {
		a.store.Close()
		return nil, fmt.Errorf("read token revocations: %w", err)
	}
	a.sweeper = retention.New(a.store, a.live.Load, a.metrics.RegisterRetention(), logger, retention.Options{})
	saves := save.New(save.Deps{Store: a.store, Config: a.live.Load, Snapshot: snapshot.Take, Enqueued: a.dispatcher.Notify,
		RedFlag: a.metrics.ObserveRedFlag})
	refs, err := seal.NewKeyring(sealKeys(keys.Encryption))
	if err != nil {
		a.store.Close()
		return nil, err
	}
	ops := operator.New(a.store, time.Now, func() { a.dispatcher.Notify() }).WithPatients(patientsOf(refs, a.live.Load)).
		WithTester(destinationTester(a.dests, senders)).WithConfig(a.live.Load).WithEvents(func(e notify.Event) { a.watch.notifier.Publish(e) })
	deps := httpapi.Deps{
		Logger: logger, Config: a.live.Load, Tokens: tokens, Revocations: a.revocations, Throttle: a.throttle,
		Store: a.store, Saves: saves, Operator: ops, Metrics: a.metrics, Now: time.Now, ServiceName: cfg.ServiceName,
		MetricsElsewhere: cfg.Metrics.Listen != "",
	}
	a.handler = httpapi.NewServer(deps)
	a.metricsHandler = httpapi.MetricsHandler(deps)
	return a, nil
}

// lockDatabase makes this process the only pads serve of its SQLite
// database (several processes share a PostgreSQL database instead). The
// lock is released when the process ends, however it ends.
func lockDatabase(cfg *config.Config) (func(), error) {
	path, ok := strings.CutPrefix(cfg.Database, "sqlite://")
	if !ok {
		return func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock database: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another pads serve is using %s: stop it first (to run several processes, use PostgreSQL)", path)
	}
	return func() { f.Close() }, nil
}

// loadKeys returns the service's secrets, generating them on first start.
func loadKeys(cfg *config.Config, logger *slog.Logger) (config.Keys, error) {
	keys, generated, err := config.LoadKeys(cfg)
	if err != nil {
		return config.Keys{}, err
	}
	if generated {
		logger.Warn("generated new secrets; back this file up: losing it loses every stored record",
			"file", filepath.Join(cfg.DataDir, config.SecretsFile))
	}
	return keys, nil
}

// openStore opens the config's database with its encryption keys, feeding
// m if it is not nil.
func openStore(ctx context.Context, cfg *config.Config, keys config.Keys, m *metrics.Metrics, logger *slog.Logger) (store.Store, error) {
	keyring, err := seal.NewKeyring(sealKeys(keys.Encryption))
	if err != nil {
		return nil, err
	}
	sc := store.Config{Keys: keyring, Logger: logger}
	if m != nil {
		sc.ObserveBatch, sc.ObserveCommit = m.ObserveSaveBatch, m.ObserveCommit
	}
	if path, ok := strings.CutPrefix(cfg.Database, "sqlite://"); ok {
		return sqlite.Open(ctx, path, sc)
	}
	return postgres.Open(ctx, cfg.Database, sc) // validation allows only sqlite:// and postgres(ql)://
}

// apply puts a reloaded config in force. Destinations first: a save under
// the new config enqueues to its destinations, and the dispatcher must
// already know them.
func (a *app) apply(cfg *config.Config) {
	if a.conns != nil {
		a.conns.SetMax(cfg.Limits.MaxConnections, cfg.Limits.MaxConnectionsPerAddress)
	}
	a.throttle.SetLimits(cfg.Limits.LoginFailures, cfg.Limits.LoginWindow.D())
	a.dests.Load(cfg)
	a.metrics.SetDestinations(destinationPairs(cfg))
	a.live.Store(cfg)
}

func sealKeys(in []config.Key) []seal.Key {
	out := make([]seal.Key, len(in))
	for i, k := range in {
		out[i] = seal.Key{ID: k.ID, Secret: k.Secret}
	}
	return out
}

func authKeys(in []config.Key) []auth.Key {
	out := make([]auth.Key, len(in))
	for i, k := range in {
		out[i] = auth.Key{ID: k.ID, Secret: k.Secret}
	}
	return out
}

func printStarter(w io.Writer, path, key string) {
	fmt.Fprintf(w, `pads: first start. Wrote a starter config to %s
with client "demo" (subscription full), funnel "demo-main", and a
destination "listen" that sends every save's results to pads listen.

The demo client's API key, shown only this once (the config keeps its sha256):

    %s

See your first webhook: run "pads listen" in another terminal (it verifies
each delivery's signature and prints it), then save a record:
    curl -s -X POST http://127.0.0.1:8080/storage/authenticate \
      -H 'Content-Type: application/json' \
      -d '{"username":"demo","password":"%s"}'

`, path, key, key)
}

// warnConfig logs what the config allows but should not hold, such as API
// keys too short to resist guessing.
func warnConfig(logger *slog.Logger, cfg *config.Config) {
	for _, w := range cfg.Warnings() {
		logger.Warn("config: " + w)
	}
}
