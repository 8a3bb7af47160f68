package wake

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// Route is one route that names a wake target, as a (re)load of the route set
// gives it.
type Route struct {
	// Key is the route's identity across reloads.
	Key string
	// Origin says where the route came from (the file, a discovered object),
	// for the one log line of a target that cannot be built.
	Origin string
	Spec   Spec
	// IdleAfter: see Binding.IdleAfter.
	IdleAfter time.Duration
	// AsleepMOTD is the description pings of the sleeping route show.
	AsleepMOTD json.RawMessage
	// LoadingMOTD is the one they show while its target wakes.
	LoadingMOTD json.RawMessage
	// Waits is the longest a player of the route may wait for its target (its
	// hold, or its long hold): a wake's readiness poll lasts at least this long.
	Waits time.Duration
	// Host is the route's first host pattern: what sleep calls name.
	Host string
	// Backends are the route's backends written without $n: the first is what
	// wake calls name, and every one's status answers feed the route's card.
	Backends []string
}

// RenderAsleep rewrites a backend's status answer for a server that sleeps or
// wakes with motd as its description (package status does it); ok is false
// for a body it cannot rewrite.
type RenderAsleep func(body []byte, motd json.RawMessage) (out []byte, ok bool)

// RoutesOptions configure a Routes.
type RoutesOptions struct {
	Coordinator Options
	// Factory builds targets; nil: every route that names one is served
	// without waking, logged once.
	Factory Factory
	Render  RenderAsleep
	// Dial asks, once per new target whose engine cannot say whether it
	// runs (a command, a webhook), whether one of its routes' backends
	// accepts a connection; none does: the target starts asleep. nil means a
	// net.Dialer.
	Dial DialFunc
	Log  logr.Logger
}

// Routes is the one seam between a proxy's routes and their sleeping
// targets: which route sleeps, holding a login while its target wakes, the
// sessions that keep it awake, and the card (last good status, asleep MOTD)
// its pings are answered from. It owns the targets built across reloads and
// the Coordinator; the proxy keeps no wake state of its own.
//
// Cards are kept beyond any status cache's TTL on purpose: a server asleep
// for a day still shows its favicon and version.
type Routes struct {
	coord  *Coordinator
	reg    registry
	render RenderAsleep
	dial   DialFunc
	log    logr.Logger

	bindMu sync.Mutex // serialises Bind; nothing a player waits on takes it

	mu        sync.Mutex
	routes    map[string]*boundRoute // by route key; only routes whose target was built
	byBackend map[string][]string    // static backend -> route keys
	cards     map[string]*card       // by route key
	warned    map[string]bool        // build problems already logged

	// sessions: the Coordinator's end of each joined session, by connection
	// id, so a relayed session carries nothing of wake.
	sessMu   sync.Mutex
	sessions map[uint64]func()
}

type boundRoute struct {
	target string // Spec.Key
	req    Request
	motds  [viewEnd]json.RawMessage
}

// view is a phase of a down target that its pings show with a description
// of its own.
type view uint8

const (
	asleepView view = iota
	loadingView
	viewEnd
)

// card is a route's last good status and its renderings per view. It is
// never changed once stored: a new rendering stores a copy.
type card struct {
	raw   []byte
	views [viewEnd]rendering
}

// rendering is raw shown with a description: body nil until rendered.
type rendering struct {
	motd string // what body was rendered with
	body []byte
}

// NewRoutes starts the seam with no route bound.
func NewRoutes(o RoutesOptions) *Routes {
	if o.Dial == nil {
		o.Dial = (&net.Dialer{}).DialContext
	}
	return &Routes{coord: NewCoordinator(o.Coordinator), reg: registry{factory: o.Factory},
		render: o.Render, dial: o.Dial, log: o.Log, routes: map[string]*boundRoute{}, byBackend: map[string][]string{},
		cards: map[string]*card{}, warned: map[string]bool{}, sessions: map[uint64]func(){}}
}

// Coordinator is the targets' state machine (for the admin view and metrics).
func (w *Routes) Coordinator() *Coordinator { return w.coord }

// Close stops the Coordinator's work.
func (w *Routes) Close() { w.coord.Close() }

// Bind is called on every (re)load with every route that names a target. A
// target that cannot be built is logged once and its route is served without
// waking: one bad annotation must not stop a whole discovery update, and the
// route still reaches its backends if they run. Targets that stay keep their
// state (Coordinator.Bind); a new one whose engine cannot say whether it runs
// starts asleep when none of its routes' backends accepts a connection.
func (w *Routes) Bind(rs []Route) {
	w.bindMu.Lock()
	defer w.bindMu.Unlock()
	specs := make([]Spec, len(rs))
	for i, r := range rs {
		specs[i] = r.Spec
	}
	targets, errs := w.reg.targets(specs)
	targets = observed(targets, rs, w.dial)
	routes := make(map[string]*boundRoute, len(rs))
	byBackend := make(map[string][]string)
	var bindings []Binding
	waits := map[string]time.Duration{} // by target key: its routes' longest wait
	for i, r := range rs {
		if errs[i] == nil {
			waits[targets[i].Key()] = max(waits[targets[i].Key()], r.Waits)
		}
	}
	for i, r := range rs {
		if errs[i] != nil {
			w.warnOnce(r, errs[i])
			continue
		}
		req := Request{ServerAddress: r.Host}
		if len(r.Backends) > 0 {
			req.Backend = r.Backends[0]
		}
		key := targets[i].Key()
		routes[r.Key] = &boundRoute{target: key, req: req,
			motds: [viewEnd]json.RawMessage{asleepView: r.AsleepMOTD, loadingView: r.LoadingMOTD}}
		for _, b := range r.Backends {
			byBackend[b] = append(byBackend[b], r.Key)
		}
		// Routes naming one target share it; the first one's settings win.
		bindings = append(bindings, Binding{Target: targets[i], IdleAfter: r.IdleAfter, Request: req, ReadyWithin: waits[key]})
	}
	w.mu.Lock()
	w.routes, w.byBackend = routes, byBackend
	for k := range w.cards {
		if routes[k] == nil {
			delete(w.cards, k)
		}
	}
	w.mu.Unlock()
	w.coord.Bind(bindings)
}

func (w *Routes) warnOnce(r Route, err error) {
	msg := r.Key + "\x00" + err.Error()
	w.mu.Lock()
	seen := w.warned[msg]
	w.warned[msg] = true
	w.mu.Unlock()
	if !seen {
		w.log.Error(err, "wake target unusable; the route is served without waking", "route", r.Key, "origin", r.Origin)
	}
}

func (w *Routes) route(key string) *boundRoute {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.routes[key]
}

// Bound reports whether the route has a usable target.
func (w *Routes) Bound(route string) bool { return w.route(route) != nil }

// Asleep reports whether the route's target sleeps or is waking: its logins
// are held (and its pings answered by Down).
func (w *Routes) Asleep(route string) bool {
	r := w.route(route)
	return r != nil && w.coord.Asleep(r.target)
}

// Hold wakes the route's target for a player who asked for host (one wake
// shared by every held login) and waits until ready names a backend that
// answers, or ctx ends. See Coordinator.Wake.
func (w *Routes) Hold(ctx context.Context, route, host string, ready func(context.Context, Result) (string, bool)) (string, error) {
	r := w.route(route)
	if r == nil {
		return "", ErrUnbound
	}
	req := r.req
	req.ServerAddress = host
	return w.coord.Wake(ctx, r.target, req, ready)
}

// Warming is Coordinator.Warming for the route's target.
func (w *Routes) Warming(route string) (addr string, at time.Time, ok bool) {
	r := w.route(route)
	if r == nil {
		return "", time.Time{}, false
	}
	return w.coord.Warming(r.target)
}

// TypicalWake is how long the route's target usually takes to wake, 0 when
// unknown.
func (w *Routes) TypicalWake(route string) time.Duration {
	r := w.route(route)
	if r == nil {
		return 0
	}
	return w.coord.TypicalWake(r.target)
}

// Joined records that connection id joined the route: its target may not
// sleep until Ended(id). A route without a target costs nothing.
func (w *Routes) Joined(route string, id uint64) {
	r := w.route(route)
	if r == nil {
		return
	}
	end := w.coord.Session(r.target)
	w.sessMu.Lock()
	w.sessions[id] = end
	w.sessMu.Unlock()
}

// Ended ends what Joined started for id, exactly once; unknown ids are
// ignored.
func (w *Routes) Ended(id uint64) {
	w.sessMu.Lock()
	end := w.sessions[id]
	delete(w.sessions, id)
	w.sessMu.Unlock()
	if end != nil {
		end()
	}
}

// Observe learns from a good status answer of one of the route's backends:
// players.online for the idle countdown (when the answer has it) and the card
// its pings are answered from while it sleeps.
func (w *Routes) Observe(route string, body []byte, online int, hasPlayers bool) {
	r := w.route(route)
	if r == nil {
		return
	}
	if hasPlayers {
		w.coord.ReportPlayers(r.target, online)
	}
	if w.render == nil {
		return
	}
	// The asleep view is rendered now: a body it cannot show is no card.
	motd := r.motds[asleepView]
	asleep, ok := w.render(body, motd)
	if !ok {
		return
	}
	c := &card{raw: bytes.Clone(body)}
	c.views[asleepView] = rendering{motd: string(motd), body: asleep}
	w.mu.Lock()
	w.cards[route] = c
	w.mu.Unlock()
}

// ObserveBackend is Observe for every route that lists addr as a static
// backend (a health probe's answer belongs to no one route).
func (w *Routes) ObserveBackend(addr string, body []byte, online int, hasPlayers bool) {
	w.mu.Lock()
	routes := w.byBackend[addr]
	w.mu.Unlock()
	for _, r := range routes {
		w.Observe(r, body, online, hasPlayers)
	}
}

// Down is the answer to a ping of a route whose target is down: ok is false
// when it runs or is not known to be stopped (or the route has no target),
// and the caller asks its backends. Else motd is the description of the
// phase, AsleepMOTD or, while it wakes, LoadingMOTD; card is the route's last
// good status shown with motd and nobody online, nil when no backend ever
// answered (the caller renders its fallback with motd). It never wakes
// anything: a ping is not a player.
func (w *Routes) Down(route string) (card []byte, motd json.RawMessage, ok bool) {
	w.mu.Lock()
	r, c := w.routes[route], w.cards[route]
	w.mu.Unlock()
	if r == nil {
		return nil, nil, false
	}
	var v view
	switch w.coord.Phase(r.target) {
	case PhaseAsleep:
		v = asleepView
	case PhaseWaking:
		v = loadingView
	default:
		return nil, nil, false
	}
	motd = r.motds[v]
	if c == nil {
		return nil, motd, true
	}
	if got := c.views[v]; got.body != nil && got.motd == string(motd) {
		return got.body, motd, true
	}
	// Not rendered yet with this MOTD (a reload changed it, or the first
	// ping of a wake): render outside the lock and keep it.
	body, rendered := w.renderView(c, motd)
	if !rendered {
		return nil, motd, true
	}
	next := *c
	next.views[v] = rendering{motd: string(motd), body: body}
	w.mu.Lock()
	if w.cards[route] == c {
		w.cards[route] = &next
	}
	w.mu.Unlock()
	return body, motd, true
}

func (w *Routes) renderView(c *card, motd json.RawMessage) ([]byte, bool) {
	if w.render == nil {
		return nil, false
	}
	return w.render(c.raw, motd)
}
