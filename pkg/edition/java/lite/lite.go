package lite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/relay"
	"go.minekube.com/gate/pkg/edition/java/lite/status"
	"go.minekube.com/gate/pkg/lite/antibot"
	"go.minekube.com/gate/pkg/lite/players"
	"go.minekube.com/gate/pkg/lite/strategy"
	"go.minekube.com/gate/pkg/lite/wake"
)

// Options are the parts of a Lite instance that do not come from the config file.
type Options struct {
	// Log receives structured logs. Zero value discards them.
	Log logr.Logger
	// Seed seeds the strategy manager's randomness. 0 picks a random seed.
	Seed uint64
	// Resolver looks up _minecraft._tcp SRV records for backends given without a port.
	// nil uses net.DefaultResolver.
	Resolver Resolver
	// Dialer opens backend connections. nil uses a net.Dialer. Tests wrap it to count
	// dial attempts; it must return *net.TCPConn for the relay to splice.
	Dialer Dialer
	// Observer receives every session event (metrics, logs, embedding programs).
	// nil observes nothing. See Observer for its rules.
	Observer Observer
	// Now is the clock of status TTLs and strategy state (tests inject one). Socket
	// deadlines always use the real clock. nil uses time.Now.
	Now func() time.Time
	// WakeTargets builds the target of each route's `wake` (the caller wires the
	// engines). nil: routes that name one are served without waking, logged once.
	WakeTargets TargetFactory
	// Wake configures the instance's wake Coordinator (Holders, AfterFunc,
	// RenewEvery). Zero Log and Now take the instance's; nil Holders is
	// wake.Local(), for one replica.
	Wake wake.Options
}

// TargetFactory builds the target a route's `wake` names; the caller wires the
// engines (Kubernetes, Docker, webhook, exec) behind it.
type TargetFactory = wake.Factory

// newWake starts the instance's seam to sleeping targets, with the instance's log
// and clock unless Options.Wake names others.
func newWake(o Options) *wake.Routes {
	wo := o.Wake
	if wo.Log.GetSink() == nil {
		wo.Log = o.Log.WithName("wake")
	}
	if wo.Now == nil {
		wo.Now = o.Now
	}
	if wo.Holders == nil {
		wo.Holders = wake.Local()
	}
	return wake.NewRoutes(wake.RoutesOptions{Coordinator: wo, Factory: o.WakeTargets, Render: status.Asleep,
		Log: o.Log.WithName("wake")})
}

// Resolver is the seam for SRV lookups so tests need no DNS server. One that also
// implements reach.HostResolver resolves template-expanded names too (else
// net.DefaultResolver does).
type Resolver = reach.SRVResolver

// Dialer is the seam for backend connections.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Lite is one proxy instance. Each instance owns its strategy manager, status cache,
// admission state, relay pollers and wake targets; instances in one process share only
// the relay's pipe pool (package relay: the kernel's pipe budget is per user).
type Lite struct {
	log      logr.Logger
	resolver Resolver
	dialer   Dialer
	obs      Observer
	connIDs  atomic.Uint64
	mgr      *strategy.Manager
	cache    *status.Cache
	// protocols are the versions each route's real clients use (status cache keys).
	protocols *status.Protocols
	// adm holds quotas and open-connection counts; it outlives reloads.
	adm *admission.Controller
	// guard checks where template-expanded backends may be dialled; dials holds the
	// local addresses of live backend connections, so a dial that loops back into
	// this proxy is refused when it arrives (package reach).
	guard *reach.Guard
	dials *reach.Dials
	// telling holds a slot per refused connection being told why (refused.go); Serve
	// sizes it from the open-files budget.
	telling chan struct{}
	rel     relay.Relay // joined sessions' bytes; its poller runs only while sessions park
	// hsBufs lends the buffers a connection's first bytes are read into.
	hsBufs handshakeBufs
	// wake is the seam to the routes' sleeping targets (package wake owns them);
	// it outlives reloads.
	wake *wake.Routes
	// players holds the access list files the config names; it outlives reloads.
	players *players.Guard
	bots    *antibot.Guard // anti-bot checks' state (names, addresses); outlives reloads

	// fdCap is how many connections the open-files limit lets Serve handle at once
	// (fdcap.go); 0 is no cap. freed wakes an accept loop waiting at it.
	fdCap int64
	freed chan struct{}

	snap  atomic.Pointer[snapshot]
	ready atomic.Bool // listener bound and config loaded

	sessions sync.WaitGroup
	live     atomic.Int64 // connections being handled, for the shutdown lines
	held     atomic.Int64 // logins held while their route's target wakes (hold.go)
	connsMu  sync.Mutex
	conns    map[net.Conn]struct{}
	moves    moves // sessions handed to or taken from another process (adopt.go)
}

// New builds a Lite instance from a loaded config.
func New(cfg *config.Config, o Options) (*Lite, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Dialer == nil {
		o.Dialer = &net.Dialer{}
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	l := &Lite{
		log:       o.Log,
		resolver:  o.Resolver,
		dialer:    o.Dialer,
		obs:       o.Observer,
		cache:     status.NewCache(status.Options{Now: o.Now}),
		protocols: status.NewProtocols(0),
		conns:     make(map[net.Conn]struct{}),
		adm:       admission.New(cfg.Quota.Config, admission.Options{Now: o.Now}),
		telling:   make(chan struct{}, admission.MaxFullReplies),
		freed:     make(chan struct{}, 1),
		wake:      newWake(o),
		players:   players.NewGuard(o.Log.WithName("players")),
		bots:      antibot.New(antibot.Options{Now: o.Now, Log: o.Log.WithName("antibot")}),
	}
	l.mgr = strategy.NewManager(strategy.Options{
		Seed:   o.Seed,
		Now:    o.Now,
		Log:    o.Log.WithName("strategy"),
		Prober: prober{l: l},
	})
	var hosts reach.HostResolver = net.DefaultResolver
	if h, ok := o.Resolver.(reach.HostResolver); ok {
		hosts = h
	}
	local := reach.NewLocalAddrs(nil)
	l.guard = reach.NewGuard(struct {
		reach.SRVResolver
		reach.HostResolver
	}{o.Resolver, hosts}, local)
	l.dials = reach.NewDials(local)
	if err := l.Reload(cfg); err != nil {
		return nil, err
	}
	return l, nil
}

// Reload swaps in a new config. New connections use it at once; live sessions keep the
// snapshot they started with; strategy state of backends that remain is kept. The bind
// address is not reloaded (the caller restarts for that).
func (l *Lite) Reload(cfg *config.Config) error {
	s, err := compile(cfg)
	if err != nil {
		return fmt.Errorf("compile config: %w", err)
	}
	l.mgr.SetRoutes(s.strategyRoutes())
	l.mgr.SetDrained(cfg.Lite.Operator.Layer.Drained())
	l.wake.Bind(s.wake) // before the swap: no session sees a wake route unbound
	l.adm.Update(cfg.Quota.Config)
	l.snap.Store(s)
	return nil
}

// Ready reports whether the instance is serving: its listener is bound and a config
// is loaded. It turns false as soon as shutdown begins.
func (l *Lite) Ready() bool { return l.ready.Load() }

// Config returns the config currently in force (read-only: callers must not modify it).
func (l *Lite) Config() *config.Config { return l.snap.Load().cfg }

// Manager exposes the instance's strategy manager (for the admin view and tests).
func (l *Lite) Manager() *strategy.Manager { return l.mgr }

// Wake exposes the instance's wake Coordinator (target states for the admin view).
func (l *Lite) Wake() *wake.Coordinator { return l.wake.Coordinator() }

// ListenAndServe binds the configured address and serves until ctx ends.
func (l *Lite) ListenAndServe(ctx context.Context) error {
	bind := l.snap.Load().cfg.Bind
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", bind)
	if err != nil {
		return fmt.Errorf("listen %s: %w", bind, err)
	}
	return l.Serve(ctx, ln)
}

// Serve accepts connections on ln until ctx ends, then stops accepting, gives live
// sessions the configured grace period, closes what remains and returns once every
// goroutine it started has exited. It closes ln.
func (l *Lite) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var bg sync.WaitGroup
	bg.Go(func() { _ = l.mgr.Run(ctx) })
	bg.Go(func() {
		<-ctx.Done()
		_ = ln.Close()
	})
	api := l.snap.Load().cfg.API
	l.guard.SetOwn(ln.Addr().String(), api.Bind, api.ProbeBind)
	l.applyFDBudget()
	l.log.Info("listening", "bind", ln.Addr().String(), "routes", len(l.snap.Load().routes))
	l.ready.Store(true)

	// Sessions get a context of their own that outlives ctx until the grace period
	// ends: shutdown stops accepting, but a login in its failover wait (or a status
	// fetch) still finishes if a backend answers within the grace.
	sessCtx, endSessions := context.WithCancel(context.WithoutCancel(ctx))
	defer endSessions()
	l.moves.serve(sessCtx)
	err := l.acceptLoop(ctx, sessCtx, ln)
	l.ready.Store(false)
	why := context.Cause(ctx) // the signal, when NotifyContext ended it
	if why == nil {
		why = err
	}
	cancel()
	l.drain(why, endSessions)
	bg.Wait()
	l.cache.Close()
	l.wake.Close()
	l.players.Close()
	return err
}

// acceptLoop accepts until ctx ends; each connection is handled under sessCtx.
func (l *Lite) acceptLoop(ctx, sessCtx context.Context, ln net.Listener) error {
	var backoff time.Duration
	for {
		full, ok := l.awaitRoom(ctx)
		if !ok {
			return nil
		}
		c, err := ln.Accept()
		if err != nil {
			if full {
				<-l.telling
			}
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				l.log.Error(err, "accept failed; retrying", "in", backoff)
				select {
				case <-time.After(backoff):
				case <-ctx.Done():
					return nil
				}
				continue
			}
			return fmt.Errorf("accept: %w", err)
		}
		backoff = 0
		// A connection ended meanwhile: serve this one. (Its slot is in telling but it
		// is not in live yet, hence the -1.)
		if full && l.live.Load()-int64(len(l.telling)-1) < l.fdCap {
			<-l.telling
			full = false
		}
		l.track(c, true)
		l.live.Add(1)
		l.sessions.Add(1) // Done in conn.gone, at the end of handle or of the relay
		go l.handle(sessCtx, c, full)
	}
}

// drain waits up to the grace period for sessions to end, then ends the sessions'
// context (endSessions) and closes the rest. It logs one line as it starts (why, live sessions, grace) and one when done
// (how many sessions ended by themselves, how many were closed at the end).
func (l *Lite) drain(why error, endSessions context.CancelFunc) {
	grace := l.snap.Load().cfg.Lite.ShutdownGrace
	live := l.live.Load()
	cause := "listener closed"
	if why != nil {
		cause = why.Error()
	}
	l.log.Info("shutting down: no new connections; live sessions get the grace period",
		"cause", cause, "sessions", live, "grace", grace)
	closed := int64(0)
	defer func() {
		l.log.Info("shutdown complete", "endedByThemselves", live-closed, "closedAtGraceEnd", closed)
	}()
	done := make(chan struct{})
	go func() {
		l.sessions.Wait()
		close(done)
	}()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	endSessions()
	l.connsMu.Lock()
	closed = l.live.Load()
	for c := range l.conns {
		_ = c.Close()
	}
	l.connsMu.Unlock()
	l.rel.Abort() // parked sessions have no goroutine that the Close reaches
	<-done
}

// track registers a connection (client or backend) so shutdown can close it.
func (l *Lite) track(c net.Conn, add bool) {
	l.connsMu.Lock()
	if add {
		l.conns[c] = struct{}{}
	} else {
		delete(l.conns, c)
	}
	l.connsMu.Unlock()
}
