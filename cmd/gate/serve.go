package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/reload"
	"go.minekube.com/gate/pkg/lite/admin"
	"go.minekube.com/gate/pkg/lite/logging"
	"go.minekube.com/gate/pkg/lite/metrics"
)

// app is one running proxy with its admin API and config watcher.
type app struct {
	log       logr.Logger
	level     *slog.LevelVar
	debugFlag bool // --debug wins over config.debug

	reloader *reload.Reloader
	proxy    *lite.Lite
	metrics  *metrics.Metrics
	admin    *admin.Server // nil while the API is off
	apiBind  string
	ln       net.Listener // players
	apiLn    net.Listener
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// serve runs the proxy until ctx ends. started, when not nil, is called once every
// listener is bound (tests read the addresses from it).
func serve(ctx context.Context, args []string, stderr io.Writer, started func(*app)) int {
	fs := newFlagSet("gate", stderr)
	path := fs.String("config", "", "config file (default: config.yml in the working directory)")
	debug := fs.Bool("debug", false, "log debug messages (overrides config.debug)")
	format := fs.String("log-format", "text", "log format: text or json")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gate: unknown command %q\n%s\n", fs.Arg(0), usage)
		return 2
	}
	f, err := logging.ParseFormat(*format)
	if err != nil {
		fmt.Fprintln(stderr, "--log-format:", err)
		return 2
	}
	a := &app{level: new(slog.LevelVar), debugFlag: *debug}
	a.log, _ = logging.New(stderr, logging.Options{Format: f, Level: a.level})
	a.reloader = reload.New(reload.Options{
		Path:     configPath(*path),
		Apply:    a.apply,
		OnResult: func(r reload.Result) { a.metrics.ObserveReload(r.Err) },
		Log:      a.log.WithName("reload"),
		SIGHUP:   true,
	})
	cfg, warnings, err := a.reloader.Load()
	for _, w := range warnings {
		a.log.Info("config warning", "warning", w.String())
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	a.setDebug(cfg.Debug)
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

// start builds the proxy and binds every listener, so that a bad bind fails the
// start instead of a goroutine later.
func (a *app) start(ctx context.Context, cfg *config.Config) error {
	a.metrics = metrics.New(metrics.Options{})
	p, err := lite.New(cfg, lite.Options{Log: a.log, Observer: a.metrics})
	if err != nil {
		return err
	}
	a.proxy = p
	a.metrics.WatchBackends(p)
	var lc net.ListenConfig
	if a.ln, err = lc.Listen(ctx, "tcp", cfg.Bind); err != nil {
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
		a.apiLn, err = lc.Listen(ctx, "tcp", cfg.API.Bind)
	}
	if err != nil {
		_ = a.ln.Close()
		return fmt.Errorf("admin API: %w", err)
	}
	a.apiBind = cfg.API.Bind
	a.admin = admin.New(admin.Options{Source: p, Token: token, Metrics: a.metrics.Handler(),
		PublicMetrics: cfg.API.PublicMetrics, Log: a.log.WithName("admin")})
	return nil
}

// run serves players until ctx ends. The admin API and the watcher outlive the
// proxy's drain, so /metrics and /readyz show it, and stop once it is over.
func (a *app) run(ctx context.Context) error {
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
		if err := a.reloader.Run(side); err != nil {
			a.log.Error(err, "config watch stopped; reload with SIGHUP")
		}
	})
	err := a.proxy.Serve(ctx, a.ln)
	stopSide()
	wg.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// apply is the reload step after validation: the proxy first (it can still
// refuse), then the settings around it.
func (a *app) apply(cfg *config.Config) error {
	if err := a.proxy.Reload(cfg); err != nil {
		return err
	}
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

func (a *app) setDebug(on bool) {
	if on || a.debugFlag {
		a.level.Set(slog.LevelDebug)
	} else {
		a.level.Set(slog.LevelInfo)
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
