package lite

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/status"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
	"go.minekube.com/gate/pkg/lite/wake"
)

// Built-in disconnect texts, used unless the config overrides them.
const (
	defaultUnknownHost = "There is no server at this address. Check the address and try again."
	defaultUnavailable = "This server is unavailable right now. Please try again in a moment."
)

// snapshot is an immutable compiled config. Sessions load it once and keep it, so a
// reload never changes the rules under a live connection.
type snapshot struct {
	cfg    *config.Config
	table  *route.Table
	routes []*compiledRoute
	// unknownHost is the complete Login Disconnect frame for a host no route matches.
	unknownHost []byte
	// proxyProtocolBackends are backends that expect a PROXY header (probes send one too).
	proxyProtocolBackends map[string]bool
	// objectNamed are host names a discovered object wrote as its backend (an
	// ExternalName, a proxyServerName): dialled through the guard like an engine's,
	// since the object's owner may not aim the proxy at its own host by DNS.
	objectNamed map[string]bool
	// wake lists the routes that name a wake target, as package wake binds them.
	wake []wake.Route
}

// compiledRoute is one config route with everything the hot path needs precomputed.
type compiledRoute struct {
	key      string // stable identity across reloads (config.Route.Key)
	cfg      config.Route
	fallback *status.Fallback
	// unavailable is the complete Login Disconnect frame sent when every backend failed.
	unavailable []byte
	// static lists the backends without $n templates (the ones probes can reach).
	static []string
	// first is what the route's backends see first, for logins and status fetches.
	first reach.First
}

func compile(cfg *config.Config) (*snapshot, error) {
	table, err := route.Compile(cfg.Lite.Specs())
	if err != nil {
		return nil, err
	}
	s := &snapshot{
		cfg:                   cfg,
		table:                 table,
		unknownHost:           disconnectFrame(cfg.Lite.Disconnect.UnknownHost, defaultUnknownHost),
		proxyProtocolBackends: make(map[string]bool),
		objectNamed:           make(map[string]bool),
	}
	globalUnavailable := cfg.Lite.Disconnect.Unavailable
	for _, r := range cfg.Lite.Routes {
		// The config is read-only once loaded, so the route renders from it directly.
		cr := &compiledRoute{key: r.Key, cfg: r, fallback: r.Fallback,
			first: reach.NewFirst(r.ProxyProtocol, r.ModifyVirtualHost, r.TCPShieldRealIP)}
		if cr.key == "" {
			cr.key = config.RouteKey(r.Host)
		}
		msg := r.Disconnect.Unavailable
		if msg == nil {
			msg = globalUnavailable
		}
		cr.unavailable = disconnectFrame(msg, defaultUnavailable)
		for _, b := range r.Backend {
			if route.MaxParam(b) == 0 {
				cr.static = append(cr.static, b)
				if r.ProxyProtocol {
					s.proxyProtocolBackends[b] = true
				}
				if r.Key != "" && !ipLiteral(b) {
					s.objectNamed[b] = true
				}
			}
		}
		s.routes = append(s.routes, cr)
		if r.Wake != nil {
			s.wake = append(s.wake, cr.wakeRoute())
		}
	}
	if len(s.routes) != table.Len() {
		return nil, fmt.Errorf("route table has %d routes, config %d", table.Len(), len(s.routes))
	}
	return s, nil
}

// wakeRoute is what package wake needs to know of a route that names a target.
func (r *compiledRoute) wakeRoute() wake.Route {
	w := wake.Route{Key: r.key, Origin: r.cfg.Origin, Spec: *r.cfg.Wake, IdleAfter: r.cfg.WakeSettings.IdleAfter,
		Waits:      max(r.cfg.WakeSettings.HoldFor, r.cfg.TransferHold.For),
		AsleepMOTD: r.cfg.WakeSettings.AsleepMOTD, LoadingMOTD: r.cfg.WakeSettings.LoadingMOTD, Backends: r.static}
	if len(r.cfg.Host) > 0 {
		w.Host = r.cfg.Host[0]
	}
	return w
}

// asleepStatus answers a ping of the route while its target sleeps or wakes: card
// (package wake: its last good status shown with motd, the asleep or loading
// MOTD); without one, its fallback with motd; without that, motd alone.
func (r *compiledRoute) asleepStatus(card []byte, motd json.RawMessage, protocol int32) []byte {
	if card != nil {
		return card
	}
	return r.fallback.Asleep(motd, protocol)
}

// template returns the configured backend (with $n unfilled) that addr was expanded
// from, so metrics and logs can label by it (expanded addresses are client-chosen)
// and the guard knows which host the template itself writes out.
func (r *compiledRoute) template(expanded []string, addr string) string {
	for i, b := range expanded {
		if b == addr && i < len(r.cfg.Backend) {
			return r.cfg.Backend[i]
		}
	}
	return addr
}

// dialTemplate is the template the guard checks a dial of addr against.
func (s *snapshot) dialTemplate(r *compiledRoute, expanded []string, addr string) string {
	if s.objectNamed[addr] {
		return engineNamed
	}
	if r == nil {
		return addr
	}
	return r.template(expanded, addr)
}

// ipLiteral reports whether backend addr names an address, not a host name.
func ipLiteral(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	_, err = netip.ParseAddr(host)
	return err == nil
}

func disconnectFrame(msg json.RawMessage, def string) []byte {
	return wire.AppendLoginDisconnect(nil, status.DisconnectText(msg, def))
}

// strategyRoutes tells the strategy manager about every route and its static backends.
func (s *snapshot) strategyRoutes() []strategy.Route {
	out := make([]strategy.Route, 0, len(s.routes))
	for _, r := range s.routes {
		out = append(out, r.cfg.StrategyRoute(r.key, r.static))
	}
	return out
}
