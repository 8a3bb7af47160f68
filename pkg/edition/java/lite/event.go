package lite

import (
	"net"
	"time"

	"go.minekube.com/gate/pkg/lite/antibot"
	"go.minekube.com/gate/pkg/lite/players"
)

// EventKind says which step of a connection an Event reports.
type EventKind uint8

// The steps of a connection, in the order they happen. Every accepted connection
// produces exactly one EventClosed, whatever happened before it.
const (
	// EventAccepted: a TCP connection was accepted (before any byte was read).
	EventAccepted EventKind = iota
	// EventRejected: the connection was refused before reaching a backend (Reason says
	// why: see the Reason* constants). A login still receives a Disconnect text.
	EventRejected
	// EventRouted: the handshake matched a route (Route, VHost, Protocol, Intent set).
	EventRouted
	// EventDial: one dial attempt to a backend finished (Err nil on success; Duration
	// is the connect time). Status fetches and probes are not reported here.
	EventDial
	// EventJoined: a player session was handed to Backend; bytes now flow.
	EventJoined
	// EventStatus: a status request was answered (Source says from where).
	EventStatus
	// EventEnded: a player session ended (Reason, Duration, BytesUp/BytesDown set).
	EventEnded
	// EventClosed: the client connection is gone; the last event of every connection.
	EventClosed
)

var eventKindNames = [...]string{"accepted", "rejected", "routed", "dial", "joined", "status", "ended", "closed"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "unknown"
}

// Reasons carried by EventRejected and EventEnded. They are fixed strings so they can
// be metric labels.
const (
	ReasonMalformed   = "malformed"    // not a Minecraft handshake, or too large
	ReasonTimeout     = "timeout"      // the client did not finish in time
	ReasonClientGone  = "client-gone"  // the client hung up before routing finished
	ReasonNoRoute     = "no-route"     // no route matches the host
	ReasonUnavailable = "unavailable"  // every backend failed (login) or no status (ping)
	ReasonProxyHeader = "proxy-header" // a bad or untrusted PROXY header
	ReasonAdmission   = "admission"    // refused by quota or access lists
	ReasonShutdown    = "shutdown"     // the proxy stopped
	ReasonProxyFull   = "proxy-full"   // the proxy itself is out of file descriptors or memory
	ReasonLoop        = "loop"         // the connection came from this proxy's own backend dial
	ReasonStarting    = "starting"     // a held login's target did not start within holdFor
	ReasonDenied      = "denied"       // the player is not allowed by the access lists (players)

	ReasonInvalidName     = antibot.InvalidName     // anti-bot checks (package antibot): not a valid Java name
	ReasonNameRate        = antibot.NameRate        // the name logged in too often
	ReasonNameSessions    = antibot.NameSessions    // the name has its sessions open
	ReasonAttackReconnect = antibot.AttackReconnect // attack mode: a new address must reconnect first

	ReasonClientClosed  = "client-closed"  // session ended by the player's side
	ReasonBackendClosed = "backend-closed" // session ended by the backend's side
	ReasonError         = "error"          // session ended by a network error
	ReasonMoved         = "moved"          // session handed, live, to a new process of the proxy (adopt.go)
)

// Sources carried by EventStatus: where the status answer came from. They are fixed
// strings so they can be metric labels.
const (
	SourceCache    = "cache"           // a cached backend answer, within the route's TTL
	SourceBackend  = "backend"         // fetched from a backend for this ping
	SourceFallback = "fallback"        // the route's configured fallback status
	SourceLastGood = "last-known-good" // every backend failed: the last answer seen, if recent
	SourceAsleep   = "asleep"          // the route's target sleeps: its last good answer, asleep MOTD
)

// Event is one step in the life of a connection. Fields that do not apply to a kind
// are zero. Events of one connection are delivered in order, one at a time: on that
// connection's goroutine until it is joined, then the last ones on the relay goroutine
// that ends it; different connections deliver concurrently.
type Event struct {
	Kind   EventKind
	Time   time.Time
	Client net.Addr // the player's address (from a trusted PROXY header if any)
	// ConnID numbers connections of this instance from 1 so events can be correlated.
	ConnID uint64

	VHost    string // cleaned virtual host
	Protocol int32
	Intent   int32
	// Route is the route's identity, bounded (config.RouteKey): its host patterns
	// joined with ",", or the first of a long list with a count and a hash.
	Route string
	// Backend is the backend address dialed (with $n filled in).
	Backend string
	// BackendTemplate is the backend as configured (with $n unfilled): bounded by the
	// config, so safe as a metric label where Backend is not.
	BackendTemplate string

	Reason   string
	Source   string // EventStatus: one of the Source* constants
	Err      error
	Duration time.Duration // EventDial: connect time; EventEnded: session length
	// BytesUp and BytesDown count relayed bytes (up: player to backend).
	BytesUp, BytesDown int64
	// Player is who the Login Start names, from identify on; nil before it and for
	// pings. Shared with the connection: read it, never change it.
	Player *players.Player
}

// next readies e for the connection's next event: the connection's context (ConnID,
// VHost, Protocol, Intent, Route, Backend, BackendTemplate) stays and every other field
// is zeroed, so nothing one event reports leaks into the next. A field added to Event
// is per-event unless eventContext keeps it (TestEventNextKeepsConnectionFields pins
// the split).
func (e *Event) next() { *e = e.context().event() }

// eventContext is the part of an Event that lasts for the whole connection (what next
// keeps). A joined session idles with only this (relayed.evCtx): 80 bytes where a
// whole Event is 208, paid by every idle player.
type eventContext struct {
	connID                          uint64
	vhost                           string
	protocol, intent                int32
	route, backend, backendTemplate string
}

func (e *Event) context() eventContext {
	return eventContext{connID: e.ConnID, vhost: e.VHost, protocol: e.Protocol, intent: e.Intent,
		route: e.Route, backend: e.Backend, backendTemplate: e.BackendTemplate}
}

// event is a fresh Event of the connection c describes.
func (c eventContext) event() Event {
	return Event{ConnID: c.connID, VHost: c.vhost, Protocol: c.protocol, Intent: c.intent,
		Route: c.route, Backend: c.backend, BackendTemplate: c.backendTemplate}
}

// Observer receives session events. Observe is called synchronously on the goroutine
// serving the connection (see Event), so it must be quick and must not block: count, log, or hand
// off to a channel. This is the extension point for programs that embed the proxy.
//
// The *Event is reused: the connection overwrites it for its next event as soon as
// Observe returns, so Observe must not retain the pointer (copy the Event to keep it).
type Observer interface {
	Observe(e *Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(e *Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e *Event) { f(e) }

// Observers fans one event out to several observers in order.
type Observers []Observer

// Observe calls every observer in order.
func (os Observers) Observe(e *Event) {
	for _, o := range os {
		o.Observe(e)
	}
}
