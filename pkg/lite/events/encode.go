package events

import (
	"encoding/json"
	"net"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"go.minekube.com/gate/pkg/lite/players"
)

// Format is how a webhook's body is written.
type Format uint8

const (
	// FormatGate is the Event as JSON (docs/lite/events.md).
	FormatGate Format = iota
	// FormatMCRouter is mc-router's webhook payload, for receivers built for it.
	FormatMCRouter
)

// ParseFormat reads a webhook's `format`: "" or "gate", or "mc-router".
func ParseFormat(s string) (Format, bool) {
	switch s {
	case "", "gate":
		return FormatGate, true
	case "mc-router":
		return FormatMCRouter, true
	}
	return 0, false
}

// PlayerJSON is a player in both formats: mc-router writes the UUID always (the
// zero UUID when the client sent none), and so does this.
type PlayerJSON struct {
	Name string    `json:"name"`
	UUID uuid.UUID `json:"uuid"`
}

func playerJSON(p *players.Player) *PlayerJSON {
	if p == nil {
		return nil
	}
	return &PlayerJSON{Name: p.Name, UUID: p.UUID}
}

// JSON is an Event as gate writes it (webhooks, the stream).
type JSON struct {
	ID         uint64      `json:"id"`
	Type       string      `json:"type"`
	Time       time.Time   `json:"time"`
	Conn       uint64      `json:"conn,omitempty"`
	Route      string      `json:"route,omitempty"`
	Hosts      []string    `json:"hosts,omitempty"`
	VHost      string      `json:"vhost,omitempty"`
	Backend    string      `json:"backend,omitempty"`
	Client     string      `json:"client,omitempty"`
	Player     *PlayerJSON `json:"player,omitempty"`
	Reason     string      `json:"reason,omitempty"`
	DurationMs int64       `json:"durationMs,omitempty"`
	BytesUp    int64       `json:"bytesUp,omitempty"`
	BytesDown  int64       `json:"bytesDown,omitempty"`
	Target     string      `json:"target,omitempty"`
	From       string      `json:"from,omitempty"`
	To         string      `json:"to,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// View is e as gate writes it.
func (e *Event) View() JSON {
	j := JSON{ID: e.ID, Type: e.Type.String(), Time: e.Time.UTC(), Conn: e.Conn, Route: e.Route, Hosts: e.Hosts,
		VHost: e.VHost, Backend: e.Backend, Player: playerJSON(e.Player), Reason: e.Reason,
		DurationMs: e.Duration.Milliseconds(), BytesUp: e.BytesUp, BytesDown: e.BytesDown,
		Target: e.Target, From: e.From, To: e.To, Error: e.Err}
	if e.Client != nil {
		j.Client = e.Client.String()
	}
	return j
}

// MCRouter is mc-router's webhook payload (its server/webhook_notifier.go), field
// for field.
type MCRouter struct {
	Event     string          `json:"event"`
	Timestamp time.Time       `json:"timestamp"`
	Status    string          `json:"status"`
	Client    *MCRouterClient `json:"client,omitempty"`
	Server    string          `json:"server"`
	Player    *PlayerJSON     `json:"player,omitempty"`
	Backend   string          `json:"backend,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// MCRouterClient is the player's address as mc-router writes it.
type MCRouterClient struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// mc-router's statuses.
const (
	mcSuccess       = "success"
	mcMissing       = "missing-backend"
	mcFailedBackend = "failed-backend-connection"
)

// MCRouterView is e as mc-router would have told it; ok is false for what
// mc-router has no event for (health, wake, refusals other than no route or no
// backend).
func (e *Event) MCRouterView() (p MCRouter, ok bool) {
	p = MCRouter{Timestamp: e.Time.UTC(), Status: mcSuccess, Server: e.VHost, Player: playerJSON(e.Player),
		Backend: e.Backend, Client: mcClient(e.Client)}
	switch {
	case e.Type == Joined:
		p.Event = "connect"
	case e.Type == Ended:
		p.Event = "disconnect"
	case e.Type == Refused && e.Reason == "no-route":
		p.Event, p.Status, p.Error = "connect", mcMissing, "No backend found"
	case e.Type == Refused && e.Reason == "unavailable":
		p.Event, p.Status, p.Error = "connect", mcFailedBackend, e.Err
	case e.Type == RouteAdded:
		p.Event, p.Server, p.Player, p.Client = "route-added", e.Route, nil, nil
	case e.Type == RouteRemoved:
		p.Event, p.Server, p.Player, p.Client, p.Backend = "route-removed", e.Route, nil, nil, ""
	default:
		return p, false
	}
	return p, true
}

func mcClient(a net.Addr) *MCRouterClient {
	if a == nil {
		return nil
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return nil
	}
	return &MCRouterClient{Host: ap.Addr().Unmap().String(), Port: int(ap.Port())}
}

// Body is e's webhook body in format f; nil when f has no such event.
func (e *Event) Body(f Format) ([]byte, error) {
	if f == FormatMCRouter {
		p, ok := e.MCRouterView()
		if !ok {
			return nil, nil
		}
		return json.Marshal(p)
	}
	return json.Marshal(e.View())
}
