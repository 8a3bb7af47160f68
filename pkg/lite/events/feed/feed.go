package feed

import (
	"sync"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/events"
)

// Feed is a lite.Observer that publishes joined, ended and refused events on a Bus
// and keeps the live-session table. It is called on the connection's goroutine:
// it copies a few fields and never waits.
type Feed struct {
	bus  *events.Bus
	live *events.Sessions
	// routes are the routes of the last Routes call, by key.
	routesMu sync.Mutex
	routes   map[string]lite.RouteInfo
	// health and phases are the last Watch reading.
	health map[healthKey]string
	phases map[string]string
}

// New returns a Feed publishing on bus and keeping live.
func New(bus *events.Bus, live *events.Sessions) *Feed {
	return &Feed{bus: bus, live: live}
}

// Observe publishes e if it is one of the events this package reports.
func (f *Feed) Observe(e *lite.Event) {
	var t events.Type
	switch {
	case e.Kind == lite.EventJoined:
		t = events.Joined
	case e.Kind == lite.EventEnded:
		t = events.Ended
	case e.Kind == lite.EventRejected && (e.Intent == wire.IntentLogin || e.Intent == wire.IntentTransfer):
		// A login refused; scanners, pings and garbage are not a player's event.
		t = events.Refused
	default:
		return
	}
	ev := events.Event{Type: t, Time: e.Time, Conn: e.ConnID, Route: e.Route, VHost: e.VHost, Backend: e.Backend,
		Client: e.Client, Player: e.Player, Reason: e.Reason, Duration: e.Duration, BytesUp: e.BytesUp, BytesDown: e.BytesDown}
	if e.Err != nil && t == events.Refused {
		ev.Err = e.Err.Error()
	}
	f.live.Observe(&ev)
	f.bus.Publish(ev)
}
