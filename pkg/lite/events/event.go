package events

import (
	"fmt"
	"net"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/lite/players"
)

// Type says what an Event reports.
type Type uint8

// The event types. Their names (String) are what webhooks, the stream and the
// config's `events` lists use.
const (
	// Joined: a player was handed to a backend (Route, VHost, Backend, Client, Player).
	Joined Type = iota + 1
	// Ended: a joined session ended (Reason, Duration, BytesUp, BytesDown).
	Ended
	// Refused: a login did not reach a backend (Reason: lite's Reason* strings).
	Refused
	// BackendUp and BackendDown: a backend's health changed (Route, Backend, From, To).
	BackendUp
	BackendDown
	// RouteAdded and RouteRemoved: a reload or a discovery source changed the
	// routes in force (Route, Hosts, Backend: the first backend).
	RouteAdded
	RouteRemoved
	// Wake: a wake target changed phase (Target, From, To, Err).
	Wake
	typeEnd
)

var typeNames = [typeEnd]string{Joined: "joined", Ended: "ended", Refused: "refused", BackendUp: "backend-up",
	BackendDown: "backend-down", RouteAdded: "route-added", RouteRemoved: "route-removed", Wake: "wake"}

func (t Type) String() string {
	if t < typeEnd && typeNames[t] != "" {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Types are every event type, in their order.
func Types() []Type {
	out := make([]Type, 0, typeEnd-1)
	for t := Joined; t < typeEnd; t++ {
		out = append(out, t)
	}
	return out
}

// mcRouterNames are mc-router's event names a config may use for ours.
var mcRouterNames = map[string][]Type{"connect": {Joined, Refused}, "disconnect": {Ended},
	"route-added": {RouteAdded}, "route-removed": {RouteRemoved}}

// ParseTypes reads an `events` list: our names, or mc-router's (connect,
// disconnect, route-added, route-removed). The empty list is every type.
func ParseTypes(names []string) (Mask, error) {
	if len(names) == 0 {
		return AllTypes, nil
	}
	var m Mask
	for _, n := range names {
		if ts, ok := mcRouterNames[n]; ok {
			for _, t := range ts {
				m |= t.bit()
			}
			continue
		}
		t := typeOf(n)
		if t == 0 {
			return 0, fmt.Errorf("unknown event %q (want %s, or mc-router's connect, disconnect)", n, typeList())
		}
		m |= t.bit()
	}
	return m, nil
}

func typeOf(name string) Type {
	for t := Joined; t < typeEnd; t++ {
		if typeNames[t] == name {
			return t
		}
	}
	return 0
}

func typeList() string {
	names := make([]string, 0, typeEnd-1)
	for _, t := range Types() {
		names = append(names, t.String())
	}
	return strings.Join(names, ", ")
}

// Mask is a set of types.
type Mask uint32

// AllTypes has every type.
const AllTypes = Mask(1<<typeEnd - 2)

func (t Type) bit() Mask { return 1 << t }

// Has reports whether t is in m.
func (m Mask) Has(t Type) bool { return m&t.bit() != 0 }

// Event is one thing that happened. Fields that do not apply to a type are zero.
// It holds no secret and nothing the proxy must keep private: it leaves the
// process (webhooks, the stream). The player's name and UUID are the client's claim.
type Event struct {
	// ID numbers the events of one Bus from 1, in publishing order.
	ID   uint64
	Type Type
	Time time.Time
	// Conn is the connection's number in the proxy (lite's ConnID): joined,
	// ended and refused of one player share it.
	Conn    uint64
	Route   string   // the route's key (its hosts joined with ",")
	Hosts   []string // route-added, route-removed: the route's hosts
	VHost   string   // the host the player asked for, cleaned
	Backend string
	Client  net.Addr // nil for events of no connection
	Player  *players.Player
	Reason  string
	// Duration is an ended session's length.
	Duration           time.Duration
	BytesUp, BytesDown int64
	Target             string // wake: the target's name (no secret)
	From, To           string // wake: phases; backend-up/down: health states
	Err                string
}
