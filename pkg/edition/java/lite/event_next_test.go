package lite

import (
	"errors"
	"net"
	"reflect"
	"slices"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/players"
)

// Every field of Event is either connection context, kept from event to event, or
// reported by one event only and cleared by next. A field added to Event must be
// listed here, so that someone decides which it is.
var (
	connectionFields = []string{"ConnID", "VHost", "Protocol", "Intent", "Route", "Backend", "BackendTemplate"}
	perEventFields   = []string{"Kind", "Time", "Client", "Reason", "Source", "Err", "Duration", "BytesUp", "BytesDown", "Player"}
)

func TestEventNextKeepsConnectionFields(t *testing.T) {
	typ := reflect.TypeFor[Event]()
	for f := range typ.Fields() {
		if !slices.Contains(connectionFields, f.Name) && !slices.Contains(perEventFields, f.Name) {
			t.Errorf("Event.%s is neither a connection field nor a per-event field: add it to one list (and keep it in Event.next if it is connection context)", f.Name)
		}
	}
	if n := len(connectionFields) + len(perEventFields); n != typ.NumField() {
		t.Fatalf("the lists name %d fields, Event has %d", n, typ.NumField())
	}

	e := Event{
		Kind: EventEnded, Time: time.Unix(1700000000, 0), Client: &net.TCPAddr{IP: net.IPv4(203, 0, 113, 7), Port: 1},
		ConnID: 7, VHost: "play.example.com", Protocol: 769, Intent: 2,
		Route: "*.example.com", Backend: "10.0.0.1:25565", BackendTemplate: "10.0.0.$1:25565",
		Reason: ReasonError, Source: SourceCache, Err: errors.New("boom"), Duration: time.Second,
		BytesUp: 1, BytesDown: 2, Player: &players.Player{Name: "Steve"},
	}
	before := reflect.ValueOf(e)
	for i := range typ.NumField() {
		if before.Field(i).IsZero() {
			t.Fatalf("setup: Event.%s is zero, give it a value", typ.Field(i).Name)
		}
	}
	e.next()
	after := reflect.ValueOf(e)
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		switch {
		case slices.Contains(connectionFields, name) && !reflect.DeepEqual(after.Field(i).Interface(), before.Field(i).Interface()):
			t.Errorf("next changed connection field %s: %v -> %v", name, before.Field(i), after.Field(i))
		case slices.Contains(perEventFields, name) && !after.Field(i).IsZero():
			t.Errorf("next kept per-event field %s = %v: it would leak into the next event", name, after.Field(i))
		}
	}
}

// Observers is how an embedder combines its observer with the metrics one
// (docs/lite/embedding.md): every observer sees every event, in order.
func TestObserversFanOutInOrder(t *testing.T) {
	var got []string
	mark := func(name string) Observer {
		return ObserverFunc(func(e *Event) { got = append(got, name+":"+e.Kind.String()) })
	}
	Observers{mark("metrics"), mark("mine")}.Observe(&Event{Kind: EventJoined})
	if want := []string{"metrics:" + EventJoined.String(), "mine:" + EventJoined.String()}; !slices.Equal(got, want) {
		t.Fatalf("observed %v, want %v", got, want)
	}
}
