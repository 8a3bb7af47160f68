package lite

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite/status"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
	"go.minekube.com/gate/pkg/lite/wake"
)

// TargetFactory builds the target a route's `wake` names; the caller wires the
// engines (Kubernetes, Docker, webhook, exec) behind it.
type TargetFactory func(spec wake.Spec) (wake.Target, error)

// routeWake is what a route with a usable wake target carries in the snapshot.
type routeWake struct {
	key     string // the target's (wake.Spec.Key)
	holdFor time.Duration
	motd    json.RawMessage // asleepMotd, as text component JSON
	// req is what a wake started by this route tells the engine.
	req wake.Request
}

// waking is the Lite instance's part of servers that sleep: its Coordinator, the
// targets built for the routes' specs (kept while a spec stays the same, so a
// reload does not rebuild engine clients), and each route's last good status,
// which answers pings while the target sleeps. Cards are kept beyond the status
// cache's TTL and last-good window on purpose: a server asleep for a day still
// shows its favicon and version.
type waking struct {
	coord   *wake.Coordinator
	factory TargetFactory
	log     logr.Logger

	mu      sync.Mutex
	targets map[string][]builtTarget // by Spec.Key; specs of one key differ in options
	cards   map[string]*card         // by route key; only routes with a wake target
	warned  map[string]bool          // factory problems already logged

	// sessions holds the Coordinator's end of each joined session of a route with
	// a wake target, kept here rather than in relayed, which every idle player pays.
	sessMu   sync.Mutex
	sessions map[*relayed]func()
}

type builtTarget struct {
	spec   wake.Spec
	target wake.Target
}

// card is a route's last good status and its asleep rendering.
type card struct {
	raw    []byte
	motd   string // the asleepMotd asleep was rendered with
	asleep []byte
}

func newWaking(o Options) *waking {
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
	return &waking{coord: wake.NewCoordinator(wo), factory: o.WakeTargets, log: o.Log.WithName("wake"),
		cards: make(map[string]*card), warned: make(map[string]bool), sessions: make(map[*relayed]func())}
}

// bind gives the routes of s that name a wake target their target and hands the
// set to the Coordinator, which keeps the state of targets that stay (a reload
// never moves an idle countdown). A target that cannot be built is logged once
// and its route is served without waking: one bad annotation must not stop a
// whole discovery update, and the route still reaches its backends if they run.
func (w *waking) bind(s *snapshot) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var bindings []wake.Binding
	bound := make(map[string]bool)
	kept := make(map[string][]builtTarget)
	liveRoutes := make(map[string]bool)
	for _, cr := range s.routes {
		spec := cr.cfg.Wake
		if spec == nil {
			continue
		}
		t, err := w.targetLocked(*spec, kept)
		if err != nil {
			if msg := cr.key + "\x00" + err.Error(); !w.warned[msg] {
				w.warned[msg] = true
				w.log.Error(err, "wake target unusable; the route is served without waking", "route", cr.key, "origin", cr.cfg.Origin)
			}
			continue
		}
		ws := cr.cfg.WakeSettings
		rw := &routeWake{key: t.Key(), holdFor: ws.HoldFor, motd: ws.AsleepMOTD}
		if len(cr.cfg.Host) > 0 {
			rw.req.ServerAddress = cr.cfg.Host[0]
		}
		if len(cr.static) > 0 {
			rw.req.Backend = cr.static[0]
		}
		cr.wake = rw
		liveRoutes[cr.key] = true
		for _, b := range cr.static {
			s.wakeByBackend[b] = append(s.wakeByBackend[b], cr)
		}
		if !bound[rw.key] { // routes naming one target share it; the first one's settings win
			bound[rw.key] = true
			bindings = append(bindings, wake.Binding{Target: t, IdleAfter: ws.IdleAfter, Request: rw.req})
		}
	}
	w.targets = kept
	for k := range w.cards {
		if !liveRoutes[k] {
			delete(w.cards, k)
		}
	}
	w.coord.Bind(bindings)
}

// targetLocked returns the target built for spec, building it only when no
// equal spec was built before (this reload or the last); kept collects the
// targets this reload uses.
func (w *waking) targetLocked(spec wake.Spec, kept map[string][]builtTarget) (wake.Target, error) {
	key := spec.Key()
	for _, from := range []map[string][]builtTarget{kept, w.targets} {
		for _, b := range from[key] {
			if reflect.DeepEqual(b.spec, spec) {
				if !slices.ContainsFunc(kept[key], func(k builtTarget) bool { return k.target == b.target }) {
					kept[key] = append(kept[key], b)
				}
				return b.target, nil
			}
		}
	}
	if w.factory == nil {
		return nil, errNoFactory
	}
	t, err := w.factory(spec)
	if err != nil {
		return nil, err
	}
	kept[key] = append(kept[key], builtTarget{spec: spec, target: t})
	return t, nil
}

// startSession tells the Coordinator that j holds the target key.
func (w *waking) startSession(j *relayed, key string) {
	end := w.coord.Session(key)
	w.sessMu.Lock()
	w.sessions[j] = end
	w.sessMu.Unlock()
}

// endSession ends what startSession started, exactly once.
func (w *waking) endSession(j *relayed) {
	w.sessMu.Lock()
	end := w.sessions[j]
	delete(w.sessions, j)
	w.sessMu.Unlock()
	if end != nil {
		end()
	}
}

// asleep reports whether rt's target sleeps (or is waking): its pings are
// answered from its card and its logins are held.
func (w *waking) asleep(rt *compiledRoute) bool {
	return rt.wake != nil && w.coord.Asleep(rt.wake.key)
}

// observe learns from a good status answer of one of rt's backends: the card
// pings are answered from while the target sleeps, and players.online for the
// idle countdown.
func (w *waking) observe(rt *compiledRoute, body []byte, rep strategy.Report) {
	if rt == nil || rt.wake == nil {
		return
	}
	if rep.HasPlayers {
		w.coord.ReportPlayers(rt.wake.key, rep.Online)
	}
	asleep, ok := renderAsleep(body, rt.wake.motd)
	if !ok {
		return
	}
	c := &card{raw: bytes.Clone(body), motd: string(rt.wake.motd), asleep: asleep}
	w.mu.Lock()
	w.cards[rt.key] = c
	w.mu.Unlock()
}

// asleepStatus is the answer to a ping of a sleeping route: its last good
// status with the asleep MOTD and nobody online; without one, its fallback
// with the asleep MOTD; without that, the asleep MOTD alone.
func (w *waking) asleepStatus(rt *compiledRoute, protocol int32) []byte {
	motd := rt.wake.motd
	w.mu.Lock()
	c := w.cards[rt.key]
	if c != nil && c.motd != string(motd) { // asleepMotd changed by a reload
		if b, ok := renderAsleep(c.raw, motd); ok {
			c = &card{raw: c.raw, motd: string(motd), asleep: b}
			w.cards[rt.key] = c
		}
	}
	w.mu.Unlock()
	if c != nil {
		return c.asleep
	}
	fb := status.Fallback{}
	if rt.fallback != nil {
		fb = *rt.fallback
	}
	fb.MOTD, fb.Online = motd, 0
	return fb.Render(protocol)
}

// renderAsleep rewrites a status answer for a sleeping server: description
// replaced, players.online 0 and no sample; version, max players and favicon
// are the backend's. ok is false for a body that is not a JSON object.
func renderAsleep(body []byte, motd json.RawMessage) ([]byte, bool) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil || doc == nil {
		return nil, false
	}
	var players map[string]json.RawMessage
	if raw, ok := doc["players"]; !ok || json.Unmarshal(raw, &players) != nil || players == nil {
		players = map[string]json.RawMessage{"max": json.RawMessage("0")}
	}
	players["online"] = json.RawMessage("0")
	delete(players, "sample")
	p, err := marshalPlain(players)
	if err != nil {
		return nil, false
	}
	doc["players"] = p
	doc["description"] = motd
	out, err := marshalPlain(doc)
	if err != nil || len(out) > wire.MaxStatusJSON {
		return nil, false
	}
	return out, true
}

// marshalPlain encodes without HTML escaping, as status does: a MOTD with '<'
// or '&' stays readable.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
