package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/reload"
	"go.minekube.com/gate/pkg/lite/admin"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/events"
	"go.minekube.com/gate/pkg/lite/events/feed"
	"go.minekube.com/gate/pkg/lite/logging"
	"go.minekube.com/gate/pkg/lite/metrics"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/engines"
)

// app is one running proxy with its admin API and config watcher.
type app struct {
	log   logr.Logger
	level *slog.LevelVar
	root  *rootFlags // --debug and -v win over config.debug

	reloader *reload.Reloader
	proxy    *lite.Lite
	// routes merges the file's routes with the discovery sources' and applies
	// them to proxy; a file reload goes through it too.
	routes  *discovery.Merger
	op      *operatorLayer // the operator layer above the file (operator.go)
	sources []discovery.Source
	// wake builds the targets routes wake, on the engines' own clients.
	wake    *engines.Engines
	metrics *metrics.Metrics
	// events: the bus every event goes through, the live sessions, what feeds
	// them from the proxy, and the webhooks that receive them.
	bus     *events.Bus
	live    *events.Sessions
	feed    *feed.Feed
	hooks   *events.Webhooks
	admin   *admin.Server // nil while the API is off
	apiBind string
	ln      net.Listener // players
	apiLn   net.Listener
	probeLn net.Listener // api.probeBind's; nil when the probes share apiLn
	up      upgrader     // SIGUSR2: hand everything to a new process of gate (upgrade_linux.go)
}

// serve runs the proxy with the root flags in args until ctx ends. started,
// when not nil, is called once every listener is bound (tests read the
// addresses from it).
func serve(ctx context.Context, args []string, stderr io.Writer, started func(*app)) int {
	root, rest, err := parseRoot(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "gate:", err)
		return 2
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "gate: unknown command %q\nRun gate --help for the flags and commands.\n", rest[0])
		return 2
	}
	return serveRoot(ctx, root, stderr, started)
}

func serveRoot(ctx context.Context, root *rootFlags, stderr io.Writer, started func(*app)) int {
	f, err := logging.ParseFormat(root.logFormat)
	if err != nil {
		fmt.Fprintln(stderr, "--log-format:", err)
		return 2
	}
	a := &app{level: new(slog.LevelVar), root: root}
	a.log, _ = logging.New(stderr, logging.Options{Format: f, Level: a.level})
	cfg, warnings, err := a.load()
	reload.LogWarnings(a.log, warnings)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	a.setDebug(cfg.Debug)
	a.log.Info("starting", "version", version, "config", configSource(cfg), "autoReload", a.autoReload())
	if err := a.prepareUpgrade(); err != nil {
		a.log.Error(err, "upgrade: taking over from the old process")
		return 1
	}
	if err := a.start(ctx, cfg); err != nil {
		a.log.Error(err, "start")
		return 1
	}
	if started != nil {
		started(a)
	}
	if err := a.run(ctx); err != nil {
		a.log.Error(err, "serve")
		return 1
	}
	return 0 // the proxy logged "shutdown complete"
}

// load reads the config file (the one given, else the first default that
// exists) through the reloader. Without a file, and with GATE_CONFIG_*
// variables set, the environment alone is the config and nothing reloads.
func (a *app) load() (*config.Config, []config.Warning, error) {
	path := a.root.config
	if !a.root.configSet {
		path = configPath("")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if envConfigured() {
				return checked(config.Parse(nil, ""))
			}
			return nil, nil, fmt.Errorf("no config file: none of %s in the working directory; "+
				"pass --config FILE, or write an example with: gate config --type lite > config.yml",
				strings.Join(defaultConfigs, ", "))
		}
	}
	a.reloader = reload.New(reload.Options{
		Path:     path,
		Apply:    a.apply,
		OnResult: func(r reload.Result) { a.metrics.ObserveReload(r.Err) },
		Log:      a.log.WithName("reload"),
		SIGHUP:   true,
	})
	return checked(a.reloader.Load())
}

// envConfigured reports whether GATE_CONFIG_* variables set config keys.
func envConfigured() bool {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GATE_CONFIG_") {
			return true
		}
	}
	return false
}

func configSource(cfg *config.Config) string {
	if cfg.File == "" {
		return "(environment only)"
	}
	return cfg.File
}

// autoReload reports whether file changes reload the config: off with
// --no-auto-reload or the file's top-level noAutoReload (either wins, as in Gate).
func (a *app) autoReload() bool {
	if a.reloader == nil || a.root.noAutoReload {
		return false
	}
	cur := a.reloader.Current()
	return cur == nil || !cur.NoAutoReload
}

// start builds the proxy and binds every listener, so that a bad bind fails the
// start instead of a goroutine later.
func (a *app) start(ctx context.Context, cfg *config.Config) (err error) {
	if before, after, err := raiseFDLimit(); err != nil {
		a.log.V(1).Info("could not raise the open-files limit", "err", err.Error())
	} else if after > before {
		a.log.V(1).Info("raised the open-files limit", "from", before, "to", after)
	}
	a.metrics = metrics.New(metrics.Options{})
	a.startEvents(cfg)
	defer func() {
		if err != nil {
			a.hooks.Close()
		}
	}()
	a.wake = engines.New(cfg)
	p, err := lite.New(cfg, lite.Options{Log: a.log, Observer: lite.Observers{a.metrics, a.feed},
		WakeTargets: a.wake.Target, Wake: wake.Options{Holders: a.wake.Holders()}})
	if err != nil {
		a.wake.Close()
		return err
	}
	a.proxy = p
	a.metrics.Registry().MustRegister(p.Wake().Collector())
	a.routes = discovery.NewMerger(discovery.MergerOptions{Apply: a.applyRoutes, Log: a.log.WithName("discovery")})
	a.metrics.Registry().MustRegister(a.routes)
	if a.op, err = newOperatorLayer(ctx, cfg, a.routes, a.log.WithName("operator")); err != nil {
		return err
	}
	if err := a.op.setFile(cfg); err != nil {
		return err
	}
	if a.sources, err = newSources(cfg, a.log); err != nil {
		return err
	}
	a.metrics.WatchBackends(p)
	a.metrics.WatchRelay(p.RelayStats)
	a.metrics.WatchHeld(p.HeldLogins)
	if a.ln, err = a.listen(ctx, "players", cfg.Bind); err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Bind, err)
	}
	if !cfg.API.Enabled {
		return nil
	}
	token, err := apiToken(cfg.API)
	if err == nil {
		err = admin.CheckBind(cfg.API.Bind, token)
	}
	if err == nil {
		err = a.listenAPI(ctx, cfg.API)
	}
	if err != nil {
		_ = a.ln.Close()
		return fmt.Errorf("admin API: %w", err)
	}
	a.apiBind = cfg.API.Bind
	a.admin = admin.New(admin.Options{Source: p, Token: token, Metrics: a.metrics.Handler(),
		PublicMetrics: cfg.API.PublicMetrics, Sources: a.routes.Sources, Wake: p.Wake().States,
		Events: a.bus, Sessions: a.live.List, Operator: a.op.hub, OperatorStore: a.op.where, Hosts: apiHosts(cfg.API.Bind),
		ProbeListener: a.probeLn, Log: a.log.WithName("admin")})
	return nil
}

// startEvents builds the event bus, the live-session table, the feed that fills
// them from the proxy, and the config's webhooks. The receivers start before the
// first apply, so they hear its route-added events.
func (a *app) startEvents(cfg *config.Config) {
	a.bus, a.live = events.NewBus(0), events.NewSessions()
	a.feed = feed.New(a.bus, a.live)
	a.hooks = events.NewWebhooks(a.bus, events.WebhookOptions{Log: a.log.WithName("webhooks")})
	a.hooks.Set(cfg.Lite.Webhooks)
	a.metrics.Registry().MustRegister(a.hooks.Collector())
}

// listenAPI binds the API's listener and, with api.probeBind, the probes' own.
func (a *app) listenAPI(ctx context.Context, api config.API) error {
	ln, err := a.listen(ctx, "api", api.Bind)
	if err != nil {
		return err
	}
	if api.ProbeBind != "" {
		if a.probeLn, err = a.listen(ctx, "probe", api.ProbeBind); err != nil {
			_ = ln.Close()
			return fmt.Errorf("api.probeBind: %w", err)
		}
	}
	a.apiLn = ln
	return nil
}

// run serves players until ctx ends. The admin API and the watcher outlive the
// proxy's drain, so /metrics and /readyz show it, and stop once it is over.
func (a *app) run(ctx context.Context) error {
	ctx = a.upgradable(ctx)
	side, stopSide := context.WithCancel(context.Background())
	defer stopSide()
	var wg sync.WaitGroup
	if a.admin != nil {
		wg.Go(func() {
			if err := a.admin.Serve(side, a.apiLn); err != nil {
				a.log.Error(err, "admin API stopped")
			}
		})
	}
	wg.Go(func() {
		a.feed.Watch(side, feed.Source{Backends: a.proxy.Backends, Wake: a.proxy.Wake().States}, 0)
	})
	wg.Go(func() { _ = a.op.hub.Run(side) })
	wg.Go(func() { a.upgrades(side) })
	for _, src := range a.sources {
		wg.Go(func() {
			if err := src.Run(side, a.routes); err != nil {
				a.log.Error(err, "route source stopped; its last known routes keep serving", "source", src.Name())
			}
		})
	}
	switch {
	case a.autoReload():
		wg.Go(func() {
			if err := a.reloader.Run(side); err != nil {
				a.log.Error(err, "config watch stopped; reload with SIGHUP")
			}
		})
	case a.reloader != nil: // --no-auto-reload: SIGHUP only
		wg.Go(func() { a.reloadOnSIGHUP(side) })
	}
	err := a.proxy.Serve(ctx, a.ln)
	stopSide()
	wg.Wait()
	a.routes.Close() // the sources are done: no coalesced apply outlives run
	a.op.close()
	a.wake.Close()
	a.hooks.Close()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// applyRoutes puts the merged routes (file and discovery) in force and reports
// the routes that came and went.
func (a *app) applyRoutes(cfg *config.Config) error {
	if err := a.proxy.Reload(cfg); err != nil {
		return err
	}
	a.feed.Routes(a.proxy.Routes())
	return nil
}

// apply is the reload step after validation: the proxy first (it can still
// refuse), then the settings around it.
func (a *app) apply(cfg *config.Config) error {
	if err := engines.CheckRoutes(cfg); err != nil {
		return err
	}
	if err := a.op.setFile(cfg); err != nil {
		return err
	}
	a.hooks.Set(cfg.Lite.Webhooks)
	a.setDebug(cfg.Debug)
	if a.admin == nil {
		return nil
	}
	token, err := apiToken(cfg.API)
	switch {
	case err != nil:
		a.log.Error(err, "admin API token not reloaded; keeping the old one")
	case token == "" && !admin.Loopback(a.apiBind):
		a.log.Error(admin.ErrOpenBind, "admin API token not removed; keeping the old one until a restart", "bind", a.apiBind)
	default:
		a.admin.SetToken(token)
	}
	return nil
}

func (a *app) setDebug(configDebug bool) { a.level.Set(a.root.level(configDebug)) }

// reloadOnSIGHUP reloads the config on SIGHUP until ctx ends.
func (a *app) reloadOnSIGHUP(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			a.log.Info("SIGHUP: reloading config", "file", a.proxy.Config().File)
			a.reloader.Reload(true)
		}
	}
}

// apiToken returns the configured token: api.token, or the first line of api.tokenFile.
func apiToken(c config.API) (string, error) {
	if c.TokenFile == "" {
		return c.Token, nil
	}
	data, err := os.ReadFile(c.TokenFile)
	if err != nil {
		return "", fmt.Errorf("read api.tokenFile: %w", err)
	}
	token := strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0])
	if token == "" {
		return "", fmt.Errorf("api.tokenFile %s is empty", c.TokenFile)
	}
	return token, nil
}
