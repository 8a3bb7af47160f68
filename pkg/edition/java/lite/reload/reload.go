package reload

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/logging"
)

// DefaultDebounce is how long the watcher waits after the last file event before
// it reads the file: editors and ConfigMap updates produce bursts of events.
const DefaultDebounce = 250 * time.Millisecond

// ErrNotLoaded is returned by Reload before Load succeeded.
var ErrNotLoaded = errors.New("reload: no config loaded yet")

// Options configure a Reloader.
type Options struct {
	// Path is the config file. Required.
	Path string
	// Apply puts a new, valid config in force (lite.Lite.Reload and whatever else
	// reads the config). An error keeps the previous config. Required.
	Apply func(*config.Config) error
	// OnResult is told the outcome of every reload that read a changed file or
	// was forced (metrics). Nil means nobody.
	OnResult func(Result)
	// Log receives what happened: the errors of a rejected file, warnings, and
	// settings that need a restart. The zero Logger discards.
	Log logr.Logger
	// Debounce is the quiet period after file events. Zero means DefaultDebounce.
	Debounce time.Duration
	// SIGHUP makes Run reload on SIGHUP as well.
	SIGHUP bool
}

// Result is the outcome of one reload.
type Result struct {
	// Config is the config now in force after a successful reload, else nil.
	Config   *config.Config
	Warnings []config.Warning
	// Err is why the file was rejected (a config.ErrorList for an invalid file);
	// the previous config stays in force.
	Err error
	// Unchanged is true when the file had the content already in force (or
	// already rejected) and nothing was done.
	Unchanged bool
	// RestartNeeded lists the changed keys that only a restart applies.
	RestartNeeded []string
}

// Reloader loads the config file and reloads it on demand or on change.
type Reloader struct {
	o Options

	mu   sync.Mutex // serialises loads
	cur  *config.Config
	last [sha256.Size]byte // content last read (applied or rejected)

	watching chan struct{} // closed once Run watches
}

// New creates a Reloader. Nothing is read until Load.
func New(o Options) *Reloader {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	return &Reloader{o: o, watching: make(chan struct{})}
}

// Load reads and validates the file for the first time, without calling Apply:
// the caller builds the proxy from the returned config.
func (r *Reloader) Load() (*config.Config, []config.Warning, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, err := os.ReadFile(r.o.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("load config: %w", err)
	}
	cfg, warns, err := config.Parse(data, r.o.Path)
	if err != nil {
		return nil, warns, err
	}
	r.cur, r.last = cfg, sha256.Sum256(data)
	return cfg, warns, nil
}

// Current returns the config in force (nil before Load).
func (r *Reloader) Current() *config.Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// Reload reads the file and, if its content changed (or force is set), parses,
// validates and applies it. It logs the outcome and reports it to OnResult.
func (r *Reloader) Reload(force bool) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return Result{Err: ErrNotLoaded}
	}
	data, err := os.ReadFile(r.o.Path)
	if err != nil {
		return r.finish(Result{Err: fmt.Errorf("read config: %w", err)})
	}
	sum := sha256.Sum256(data)
	if !force && sum == r.last {
		r.o.Log.V(1).Info("config file event; content unchanged", "file", r.o.Path)
		return Result{Unchanged: true}
	}
	r.last = sum
	cfg, warns, err := config.Parse(data, r.o.Path)
	res := Result{Warnings: warns}
	LogWarnings(r.o.Log, warns)
	if err != nil {
		res.Err = err
		return r.finish(res)
	}
	res.RestartNeeded = restartNeeded(r.cur, cfg)
	if err := r.o.Apply(cfg); err != nil {
		res.Err = fmt.Errorf("apply config: %w", err)
		return r.finish(res)
	}
	res.Config, r.cur = cfg, cfg
	return r.finish(res)
}

// LogWarnings logs each of a load's config warnings at warn level, the first
// load's (by the caller of Load) as well as a reload's.
func LogWarnings(log logr.Logger, warns []config.Warning) {
	for _, w := range warns {
		logging.Warn(log, "config warning", "warning", w.String())
	}
}

// finish logs a reload's outcome and reports it. r.mu is held.
func (r *Reloader) finish(res Result) Result {
	switch {
	case res.Err != nil:
		var list config.ErrorList
		if errors.As(res.Err, &list) {
			msgs := make([]string, len(list))
			for i, e := range list {
				msgs[i] = e.Error()
			}
			r.o.Log.Error(errors.New("invalid config"), "config reload rejected; the running config stays in force",
				"file", r.o.Path, "errors", msgs)
		} else {
			r.o.Log.Error(res.Err, "config reload failed; the running config stays in force", "file", r.o.Path)
		}
	default:
		for _, k := range res.RestartNeeded {
			r.o.Log.Info("config changed a setting that needs a restart; still using the old value", "key", k)
		}
		r.o.Log.Info("config reloaded", "file", r.o.Path, "routes", len(res.Config.Lite.Routes), "warnings", len(res.Warnings))
	}
	if r.o.OnResult != nil {
		r.o.OnResult(res)
	}
	return res
}

// restartNeeded lists the keys whose change needs a new listener.
func restartNeeded(old, next *config.Config) []string {
	var keys []string
	if old.Bind != next.Bind {
		keys = append(keys, fmt.Sprintf("config.bind (running on %s, file says %s)", old.Bind, next.Bind))
	}
	if old.API.Enabled != next.API.Enabled {
		keys = append(keys, fmt.Sprintf("api.enabled (running %t, file says %t)", old.API.Enabled, next.API.Enabled))
	}
	if old.API.Enabled && next.API.Enabled && old.API.Bind != next.API.Bind {
		keys = append(keys, fmt.Sprintf("api.bind (running on %s, file says %s)", old.API.Bind, next.API.Bind))
	}
	if old.API.Enabled && next.API.Enabled && old.API.ProbeBind != next.API.ProbeBind {
		keys = append(keys, fmt.Sprintf("api.probeBind (running on %q, file says %q)", old.API.ProbeBind, next.API.ProbeBind))
	}
	if old.Lite.Discovery.Kubernetes != next.Lite.Discovery.Kubernetes {
		keys = append(keys, "config.lite.discovery.kubernetes (the running watch keeps its settings)")
	}
	if old.Lite.Discovery.Docker != next.Lite.Discovery.Docker {
		keys = append(keys, "config.lite.discovery.docker (the running watch keeps its settings)")
	}
	return keys
}
