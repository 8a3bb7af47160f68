package plan

import (
	"math/rand/v2"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

func TestParseEvent(t *testing.T) {
	tests := []struct {
		in   string
		want Event
	}{
		{"5m:add:c", Event{At: 5 * time.Minute, Kind: EventAdd, Backend: "c"}},
		{"0s:remove:10.0.0.1:25565", Event{Kind: EventRemove, Backend: "10.0.0.1:25565"}},
		{"2m:latency:b:25565=+200ms", Event{At: 2 * time.Minute, Kind: EventLatency, Backend: "b:25565", Latency: 200 * time.Millisecond, Relative: true}},
		{"2m:latency:b=-5ms", Event{At: 2 * time.Minute, Kind: EventLatency, Backend: "b", Latency: -5 * time.Millisecond, Relative: true}},
		{"90s:latency:b=220ms", Event{At: 90 * time.Second, Kind: EventLatency, Backend: "b", Latency: 220 * time.Millisecond}},
		{"1m:capacity:a=50", Event{At: time.Minute, Kind: EventCapacity, Backend: "a", Capacity: 50}},
		{"3m:fail:b", Event{At: 3 * time.Minute, Kind: EventFail, Backend: "b"}},
		{"3m:refuse:b", Event{At: 3 * time.Minute, Kind: EventRefuse, Backend: "b"}},
		{"6m:recover:b", Event{At: 6 * time.Minute, Kind: EventRecover, Backend: "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseEvent(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("ParseEvent = %+v, %v; want %+v", got, err, tt.want)
			}
			if back, err := ParseEvent(got.String()); err != nil || back != got {
				t.Fatalf("String() = %q does not parse back: %+v, %v", got.String(), back, err)
			}
		})
	}
}

func TestEventsChangeTheWorld(t *testing.T) {
	base := func() Options {
		return Options{Strategy: strategy.RoundRobin, Backends: []string{"a", "b"}, Count: 100, Session: time.Hour}
	}
	tests := []struct {
		name    string
		events  []Event
		players []int
		failed  int
	}{
		{"added backend waits for its reload", []Event{{At: 50 * time.Second, Kind: EventAdd, Backend: "b"}}, []int{75, 25}, 0},
		{"removed backend gets no one after", []Event{{At: 50 * time.Second, Kind: EventRemove, Backend: "b"}}, []int{75, 25}, 0},
		{"a full backend sends players on", []Event{{At: 0, Kind: EventCapacity, Backend: "b", Capacity: 10}}, []int{90, 10}, 0},
		{"removed then added again serves before and after", []Event{
			{At: 20 * time.Second, Kind: EventRemove, Backend: "b"}, {At: 70 * time.Second, Kind: EventAdd, Backend: "b"}}, []int{75, 25}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base()
			o.Events = tt.events
			wantPlacement(t, o, tt.players, tt.failed)
		})
	}
}

func TestRefusingBackendIsShedAndComesBack(t *testing.T) {
	r, err := Run(Options{Strategy: strategy.RoundRobin, Backends: []string{"a", "b"}, Count: 100, Session: time.Hour,
		Events: []Event{{At: 20 * time.Second, Kind: EventRefuse, Backend: "b"}, {At: 40 * time.Second, Kind: EventRecover, Backend: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	// Three players pay a refused dial, then b is ejected; the probe at the
	// end of the ejection (about 30s later) finds it back.
	b := r.Backends[1]
	if r.FailedDials != strategy.EjectFailures || b.Players <= 10 || r.Placed != 100 {
		t.Fatalf("failed dials %d, b got %d players, placed %d; want %d, more than the 10 before it died, 100",
			r.FailedDials, b.Players, r.Placed, strategy.EjectFailures)
	}
}

func TestDeathDisconnectsItsPlayers(t *testing.T) {
	r, err := Run(Options{Strategy: strategy.Sequential, Backends: []string{"a", "b"}, Count: 60, Session: time.Hour,
		Events: []Event{{At: 30 * time.Second, Kind: EventFail, Backend: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	// a's 30 players left with it; b took the 30 after (3 of them paying a
	// dial timeout on the way).
	if a, b := r.Backends[0], r.Backends[1]; a.Players != 30 || b.Players != 30 || a.FailedDials != 3 || !a.Dead {
		t.Fatalf("a %+v, b %+v", a, b)
	}
}

func TestBudgetBoundsOnePlayersDials(t *testing.T) {
	r, err := Run(Options{Backends: []string{"a", "b", "c", "d"}, Fail: []string{"a", "b", "c", "d"}, Count: 1,
		DialTimeout: 5 * time.Second, Budget: 12 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// 5s + 5s + 2s (cut at the budget), then no fourth dial.
	if r.FailedDials != 3 || time.Duration(r.FailedDialTime) != 12*time.Second || r.Unplaced != 1 {
		t.Fatalf("%d failed dials costing %v, %d unplaced; want 3 costing 12s, 1", r.FailedDials, time.Duration(r.FailedDialTime), r.Unplaced)
	}
}

func TestExponentialDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, mean = 20000, time.Second
	var sum time.Duration
	for range n {
		d := expDraw(r, mean)
		if d < 0 || d > 10*mean {
			t.Fatalf("draw %v out of the table's range", d)
		}
		sum += d
	}
	if avg := sum / n; avg < 970*time.Millisecond || avg > 1030*time.Millisecond {
		t.Fatalf("mean of %d draws %v, want about %v", n, avg, mean)
	}
}

func TestDistributionsAreChecked(t *testing.T) {
	for _, o := range []Options{
		{Backends: []string{"a"}, ArrivalDist: DistUniform},
		{Backends: []string{"a"}, SessionDist: DistPoisson},
		{Backends: []string{"a"}, Replicas: maxReplicas + 1},
		{Backends: []string{"a"}, Events: []Event{{Kind: EventAdd, Backend: "b"}}},
	} {
		if _, err := Run(o); err == nil {
			t.Fatalf("Run(%+v) succeeded, want ErrInvalid", o)
		}
	}
	r, err := Run(Options{Backends: []string{"a"}, Count: 50, ArrivalDist: DistPoisson, SessionDist: DistExp})
	if err != nil || r.Placed != 50 {
		t.Fatalf("poisson arrivals, exponential sessions: %v, placed %d", err, r.Placed)
	}
}

func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{"5m:add:c", "2m:latency:b:25565=+200ms", "1m:capacity:a=50", "3m:refuse:10.0.0.1:25565", "x", "1s:latency:=", "-1s:fail:a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEvent(s)
		if err != nil {
			return
		}
		back, err := ParseEvent(e.String())
		if err != nil || back != e {
			t.Fatalf("ParseEvent(%q) = %+v, whose String %q parses to %+v, %v", s, e, e.String(), back, err)
		}
	})
}
