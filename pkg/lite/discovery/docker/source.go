package docker

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
)

// Name is the source's name in logs, the admin API and discovery.precedence.
const Name = "docker"

// Options configure a Source.
type Options struct {
	// Config is `config.lite.discovery.docker`; Enabled is not looked at.
	Config config.DockerDiscovery
	// Log receives the source's warnings and outage reports. Default: discard.
	Log logr.Logger
	// MinBackoff is the wait before the first reconnect after the daemon is
	// lost; it doubles per failed attempt up to MaxBackoff. Defaults 250ms, 5s.
	MinBackoff, MaxBackoff time.Duration
	// ListTimeout bounds one listing of the containers. Default 10s.
	ListTimeout time.Duration
}

// Source finds routes on the labels of a Docker daemon's running containers.
type Source struct {
	ep   engine.Endpoint
	opts Options
}

var _ discovery.Source = (*Source)(nil)

// New checks the daemon address and returns a source for it; it does not
// connect (Run does).
func New(o Options) (*Source, error) {
	ep, err := engine.Resolve(o.Config.Host)
	if err != nil {
		return nil, err
	}
	if o.Log.GetSink() == nil {
		o.Log = logr.Discard()
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 250 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(5*time.Second, o.MinBackoff)
	}
	if o.ListTimeout <= 0 {
		o.ListTimeout = 10 * time.Second
	}
	o.Log = o.Log.WithValues("source", Name)
	return &Source{ep: ep, opts: o}, nil
}

// Name implements discovery.Source.
func (s *Source) Name() string { return Name }

// Run follows the daemon until ctx ends: it lists the running containers,
// hands their routes to sink, and lists again after every container event
// that can change them. When the connection fails it reports the source stale
// (once per outage), reconnects with backoff, and converges with a fresh list.
// It returns nil when ctx ends, with every goroutine it started finished.
func (s *Source) Run(ctx context.Context, sink discovery.Sink) error {
	r := &runner{s: s, c: engine.NewClient(s.ep, engine.Options{HeaderTimeout: 10 * time.Second}), sink: sink, log: s.opts.Log,
		warned: map[string]bool{}, pauses: &pauses{m: map[string]bool{}}}
	defer r.c.Close()
	backoff := s.opts.MinBackoff
	for {
		synced, err := r.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if synced {
			backoff = s.opts.MinBackoff
		}
		r.lost(err)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		backoff = min(2*backoff, s.opts.MaxBackoff)
	}
}

// runner is the state of one Run.
type runner struct {
	s      *Source
	c      *engine.Client
	sink   discovery.Sink
	log    logr.Logger
	warned map[string]bool // warnings in force, logged once each
	pauses *pauses

	published []discovery.Route
	fresh     bool // published reflects the daemon since the last connect
	stale     bool // Stale was reported and no Replace since
}

// session opens the event stream, lists, and follows events until the stream
// or a list fails or ctx ends. synced says whether it got as far as a Replace.
func (r *runner) session(ctx context.Context) (synced bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The stream is opened before the list so that a change between the two
	// still triggers a list.
	stream, err := events(ctx, r.c)
	if err != nil {
		return false, err
	}
	dirty := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		for {
			ev, err := next(stream)
			if err != nil {
				done <- err
				return
			}
			r.log.V(1).Info("docker event", "type", ev.Type, "action", ev.Action, "id", ev.Actor.ID)
			r.pauses.note(ev)
			select {
			case dirty <- struct{}{}:
			default: // a list is already due; it will see this change too
			}
		}
	}()
	// The reader ends when the stream's body is closed (after cancel, too).
	defer func() {
		cancel()
		stream.Close()
		<-done
	}()
	r.fresh = false
	for {
		if err := r.sync(ctx); err != nil {
			return synced, err
		}
		synced = true
		select {
		case <-ctx.Done():
			return synced, ctx.Err()
		case err := <-done:
			done <- err // for the deferred join
			return synced, err
		case <-dirty:
		}
	}
}

// sync lists the containers and publishes their routes when they changed, or
// unconditionally after a (re)connect.
func (r *runner) sync(ctx context.Context) error {
	lctx, cancel := context.WithTimeout(ctx, r.s.opts.ListTimeout)
	defer cancel()
	cs, notReady, err := list(lctx, r.c)
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	r.pauses.apply(cs)
	routes, warns := buildRoutes(cs, notReady, r.s.opts.Config.Network)
	r.warnOnce(warns)
	if r.fresh && reflect.DeepEqual(routes, r.published) {
		return nil
	}
	r.sink.Replace(Name, routes)
	r.published, r.fresh = routes, true
	if r.stale {
		r.stale = false
		r.log.Info("docker daemon is back; routes are current", "daemon", r.s.ep.String(), "routes", len(routes))
	}
	return nil
}

// lost reports an outage once, however many reconnects it takes.
func (r *runner) lost(err error) {
	if err == nil {
		err = errors.New("docker event stream ended")
	}
	if r.stale {
		r.log.V(1).Info("docker daemon still unreachable", "daemon", r.s.ep.String(), "err", err)
		return
	}
	r.stale = true
	r.sink.Stale(Name, err)
	r.log.Error(err, "lost the docker daemon; its last routes stay in force until it is back", "daemon", r.s.ep.String())
}

// warnOnce logs each warning the first time it appears. A warning that goes
// away and comes back is logged again.
func (r *runner) warnOnce(warns []warning) {
	now := make(map[string]bool, len(warns))
	for _, w := range warns {
		if !r.warned[w.key] && !now[w.key] {
			r.log.Info("warning: "+w.msg, w.kv...)
		}
		now[w.key] = true
	}
	r.warned = now
}
