package events_test

import (
	"encoding/json"
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/events"
	"go.minekube.com/gate/pkg/lite/players"
)

// What mc-router's webhook would have sent for each event, and nothing for the
// events it has no name for.
func TestMCRouterPayloads(t *testing.T) {
	at := time.Date(2026, 12, 3, 15, 4, 5, 0, time.UTC)
	client := &net.TCPAddr{IP: net.IPv4(203, 0, 113, 7), Port: 52144}
	steve := &players.Player{Name: "Steve"}
	for _, tc := range []struct {
		name string
		e    events.Event
		want string
	}{
		{"no route", events.Event{Type: events.Refused, Reason: "no-route", VHost: "x.example.com", Client: client, Player: steve, Time: at},
			`{"event":"connect","timestamp":"2026-12-03T15:04:05Z","status":"missing-backend","client":{"host":"203.0.113.7","port":52144},"server":"x.example.com","player":{"name":"Steve","uuid":"00000000-0000-0000-0000-000000000000"},"error":"No backend found"}`},
		{"backend down", events.Event{Type: events.Refused, Reason: "unavailable", VHost: "a.example.com", Client: client, Err: "dial refused", Time: at},
			`{"event":"connect","timestamp":"2026-12-03T15:04:05Z","status":"failed-backend-connection","client":{"host":"203.0.113.7","port":52144},"server":"a.example.com","error":"dial refused"}`},
		{"route added", events.Event{Type: events.RouteAdded, Route: "a.example.com", Backend: "10.0.0.5:25565", Time: at},
			`{"event":"route-added","timestamp":"2026-12-03T15:04:05Z","status":"success","server":"a.example.com","backend":"10.0.0.5:25565"}`},
		{"route removed", events.Event{Type: events.RouteRemoved, Route: "a.example.com", Backend: "10.0.0.5:25565", Time: at},
			`{"event":"route-removed","timestamp":"2026-12-03T15:04:05Z","status":"success","server":"a.example.com"}`},
		{"denied has no mc-router event", events.Event{Type: events.Refused, Reason: "denied", Time: at}, ""},
		{"backend health has none", events.Event{Type: events.BackendDown, Time: at}, ""},
	} {
		body, err := tc.e.Body(events.FormatMCRouter)
		if err != nil || string(body) != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.name, body, err, tc.want)
		}
	}
}

// gate's own format carries every field that applies.
func TestGateJSON(t *testing.T) {
	e := events.Event{ID: 42, Type: events.Ended, Conn: 17, Route: "play.example.com", VHost: "play.example.com",
		Backend: "10.0.0.5:25565", Client: &net.TCPAddr{IP: net.IPv4(203, 0, 113, 7), Port: 52144},
		Player: &players.Player{Name: "Steve"}, Reason: "client-closed", Duration: time.Hour, BytesUp: 1, BytesDown: 2,
		Time: time.Date(2026, 12, 3, 15, 4, 5, 0, time.UTC)}
	body, _ := e.Body(events.FormatGate)
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got["type"] != "ended" || got["durationMs"] != float64(3600000) || got["client"] != "203.0.113.7:52144" || got["id"] != float64(42) {
		t.Fatalf("body %s", body)
	}
}
