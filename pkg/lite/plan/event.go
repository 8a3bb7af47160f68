package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EventKind is what an Event does to a backend.
type EventKind string

// The events a plan can schedule.
const (
	// EventAdd puts a backend into the route by a reload; a backend with an
	// add event starts outside the route.
	EventAdd EventKind = "add"
	// EventRemove takes a backend out of the route by a reload; its
	// players stay.
	EventRemove EventKind = "remove"
	// EventLatency sets the backend's latency (or changes it, Relative).
	EventLatency EventKind = "latency"
	// EventServer sets the backend's server time (or changes it,
	// Relative): status round trips slow down, connects do not.
	EventServer EventKind = "server"
	// EventCapacity sets the backend's player limit.
	EventCapacity EventKind = "capacity"
	// EventFail black-holes the backend: dials and probes time out. Its
	// players are disconnected.
	EventFail EventKind = "fail"
	// EventRefuse kills the backend: dials and probes are refused at once.
	// Its players are disconnected.
	EventRefuse EventKind = "refuse"
	// EventRecover brings a failed or refusing backend back.
	EventRecover EventKind = "recover"
)

var eventKinds = []EventKind{EventAdd, EventRemove, EventLatency, EventServer, EventCapacity, EventFail, EventRefuse, EventRecover}

// Event changes the simulated world at a time since the start of the run.
type Event struct {
	At      time.Duration `json:"at"`
	Kind    EventKind     `json:"kind"`
	Backend string        `json:"backend"`
	// Latency is the new latency of a latency event, or the change when
	// Relative.
	Latency  time.Duration `json:"latency,omitempty"`
	Relative bool          `json:"relative,omitempty"`
	// Capacity is the new limit of a capacity event; 0 is unlimited.
	Capacity int `json:"capacity,omitempty"`
}

// String formats e the way ParseEvent reads it.
func (e Event) String() string {
	s := fmt.Sprintf("%v:%s:%s", e.At, e.Kind, e.Backend)
	switch e.Kind {
	case EventLatency, EventServer:
		if e.Relative && e.Latency >= 0 {
			return s + "=+" + e.Latency.String()
		}
		return s + "=" + e.Latency.String()
	case EventCapacity:
		return s + "=" + strconv.Itoa(e.Capacity)
	}
	return s
}

// ParseEvent reads "AT:KIND:BACKEND[=VALUE]": "5m:add:c", "2m:latency:b=+200ms",
// "2m:latency:b=220ms", "3m:server:b=+250ms", "1m:capacity:a=50", "3m:fail:b", "3m:refuse:b",
// "6m:recover:b". Backends may contain colons (host:port).
func ParseEvent(s string) (Event, error) {
	at, rest, ok1 := strings.Cut(s, ":")
	kind, target, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 || target == "" {
		return Event{}, fmt.Errorf("event %q: want AT:KIND:BACKEND[=VALUE]", s)
	}
	d, err := time.ParseDuration(at)
	if err != nil || d < 0 {
		return Event{}, fmt.Errorf("event %q: time %q is not a duration >= 0", s, at)
	}
	e := Event{At: d, Kind: EventKind(kind), Backend: target}
	if !slices.Contains(eventKinds, e.Kind) {
		return Event{}, fmt.Errorf("event %q: unknown kind %q (want %s)", s, kind, joinKinds())
	}
	if e.Kind != EventLatency && e.Kind != EventServer && e.Kind != EventCapacity {
		return e, nil
	}
	i := strings.LastIndexByte(target, '=')
	if i <= 0 {
		return Event{}, fmt.Errorf("event %q: %s wants BACKEND=VALUE", s, kind)
	}
	e.Backend, err = target[:i], e.setValue(target[i+1:])
	if err != nil {
		return Event{}, fmt.Errorf("event %q: %w", s, err)
	}
	return e, nil
}

// setValue parses the value of a latency or capacity event.
func (e *Event) setValue(v string) error {
	if e.Kind == EventCapacity {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("capacity %q is not a count >= 0", v)
		}
		e.Capacity = n
		return nil
	}
	e.Relative = strings.HasPrefix(v, "+") || strings.HasPrefix(v, "-")
	d, err := time.ParseDuration(strings.TrimPrefix(v, "+"))
	if err != nil || (!e.Relative && d <= 0 && e.Kind == EventLatency) || d < 0 && !e.Relative {
		return fmt.Errorf("latency %q is not a duration (absolute > 0, or +/- a change)", v)
	}
	e.Latency = d
	return nil
}

func joinKinds() string {
	names := make([]string, len(eventKinds))
	for i, k := range eventKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// eventsFlag parses --event values; repeating the flag adds.
type eventsFlag struct{ l *[]Event }

func (f eventsFlag) String() string {
	if f.l == nil {
		return ""
	}
	parts := make([]string, len(*f.l))
	for i, e := range *f.l {
		parts[i] = e.String()
	}
	return strings.Join(parts, ",")
}

func (f eventsFlag) Set(s string) error {
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		e, err := ParseEvent(item)
		if err != nil {
			return err
		}
		*f.l = append(*f.l, e)
	}
	return nil
}
