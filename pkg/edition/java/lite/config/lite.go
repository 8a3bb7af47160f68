package config

import (
	"net/netip"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/events"
)

// Lite is `config.lite`: the routes and the settings every route shares.
type Lite struct {
	// Enabled is always true in a loaded Config: this binary only runs Lite
	// mode, so false or missing is a load error.
	Enabled bool
	// Routes in configuration order; the first route whose host matches wins.
	// At least one.
	Routes []Route
	// Disconnect overrides the built-in disconnect texts for every route
	// (`config.lite.disconnect: {unknownHost, unavailable}`). Default: none.
	Disconnect Messages
	// HealthCheck is the default for every route (`config.lite.healthCheck`),
	// resolved; unset keys take strategy's defaults.
	HealthCheck HealthCheck
	// ShutdownGrace is how long shutdown waits for open sessions before
	// closing them. Default 10s; 0 closes them at once; never negative.
	ShutdownGrace time.Duration
	// TCPShieldTrustedProxies are the peers whose TCPShield RealIP block is
	// passed through on tcpShieldRealIP routes: fronts that write the block
	// themselves (TCPShield's edge). From any other peer the proxy removes a
	// block the client sent and writes its own. Default: none. It is not
	// proxyProtocolTrustedProxies, whose default trusts private networks: a
	// plain L4 front forwards the player's handshake, block and all.
	TCPShieldTrustedProxies []netip.Prefix
	// SessionLogEvery writes the per-session INFO line ("session ended") for
	// one session in N: 1 logs every session, 0 none. Default 1; never
	// negative. Errors and debug lines are not affected.
	SessionLogEvery int
	// FirstResponseTimeout is how long a login waits for the backend's first
	// byte after the handshake went out; without one the attempt fails and
	// the next backend gets the same bytes. Default 3s; must be positive.
	FirstResponseTimeout time.Duration
	// Discovery finds routes in Kubernetes and Docker (`discovery`). Default:
	// every source off.
	Discovery Discovery
	// Wake holds the defaults of every route's `holdFor`, `idleAfter` and
	// `asleepMotd`, `loadingMotd` (`config.lite.wake`), resolved.
	Wake WakeDefaults
	// Players are who may join any route (`players`, players.go).
	Players Players
	// Webhooks receive the proxy's events (`webhooks`, webhooks.go). Default none.
	Webhooks []events.Webhook
	// Operator is where the operator layer lives, and the layer (`operator`, operator.go).
	Operator Operator
}

// DefaultFirstResponseTimeout is FirstResponseTimeout's default: a healthy server
// answers a Login Start within milliseconds, so a few seconds is generous.
const DefaultFirstResponseTimeout = 3 * time.Second

func defaultLite() Lite {
	return Lite{HealthCheck: HealthCheck{}.WithDefaults(), ShutdownGrace: 10 * time.Second,
		SessionLogEvery: 1, FirstResponseTimeout: DefaultFirstResponseTimeout,
		Discovery: Discovery{Precedence: DefaultPrecedence()}, Wake: defaultWake(), Operator: defaultOperator()}
}

// Specs returns the routes as route specs, ready for route.Compile. Adjacent
// file routes (Key "") form one precedence group, in which the operator's
// order decides; every discovered route is a group of its own, because a
// source's order says nothing about which host should win.
func (l *Lite) Specs() []route.Spec {
	specs := make([]route.Spec, len(l.Routes))
	group := 0
	for i, r := range l.Routes {
		if i > 0 && (r.Key != "" || l.Routes[i-1].Key != "") {
			group++
		}
		specs[i] = route.Spec{Hosts: r.Host, Backends: r.Backend, Group: group}
	}
	return specs
}

const liteOnly = "this binary only runs Lite mode; set config.lite.enabled: true"

// decodeLite decodes `config.lite`. Routes are decoded last because they
// inherit the global healthCheck and disconnect, wherever those appear.
func (d *decoder) decodeLite(e entry, l *Lite) {
	var enabled, routes, health, disconnect, discovery, wakeDefaults *entry
	enabledOK := false
	ok := d.mapping(e, map[string]handler{
		"enabled": func(f entry) {
			enabled = &f
			enabledOK = d.boolean(f, &l.Enabled)
		},
		"routes":      func(f entry) { routes = &f },
		"healthCheck": func(f entry) { health = &f },
		"disconnect":  func(f entry) { disconnect = &f },
		"discovery":   func(f entry) { discovery = &f },
		"wake":        func(f entry) { wakeDefaults = &f },
		"players":     func(f entry) { d.decodePlayers(f, &l.Players) },
		"webhooks":    func(f entry) { d.decodeWebhooks(f, &l.Webhooks) },
		"operator":    func(f entry) { d.decodeOperator(f, &l.Operator) },
		"tcpShieldTrustedProxies": func(f entry) {
			l.TCPShieldTrustedProxies = d.prefixList(f)
		},
		"sessionLogEvery":      func(f entry) { d.intField(f, 0, &l.SessionLogEvery) },
		"shutdownGrace":        func(f entry) { d.nonNegative(f, &l.ShutdownGrace) },
		"firstResponseTimeout": func(f entry) { d.positive(f, &l.FirstResponseTimeout) },
	}, nil)
	d.operatorDefaults(&l.Operator)
	if !ok {
		return
	}
	switch {
	case enabled == nil:
		d.errorf(e.key.Line, child(e.path, "enabled"), ErrLiteDisabled, "missing: %s", liteOnly)
	case enabledOK && !l.Enabled:
		d.errorf(enabled.val.Line, enabled.path, ErrLiteDisabled, "false: %s", liteOnly)
	}
	var written HealthCheck // the global keys as set, zero where unset
	if health != nil {
		written, l.HealthCheck = d.decodeHealthCheck(*health, written)
	}
	if disconnect != nil {
		d.decodeMessages(*disconnect, &l.Disconnect, false)
	}
	if discovery != nil {
		d.decodeDiscovery(*discovery, &l.Discovery)
	}
	if wakeDefaults != nil {
		d.decodeWakeDefaults(*wakeDefaults, &l.Wake)
	}
	switch {
	case routes != nil:
		d.decodeRoutes(*routes, l, written)
	case !l.Discovery.Any():
		d.errorf(e.key.Line, child(e.path, "routes"), ErrMissing,
			"missing: configure at least one route, or enable a discovery source")
	}
}
