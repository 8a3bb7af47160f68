package plan

import (
	"flag"
	"io"
	"reflect"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

func TestFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want Options
	}{
		{"defaults", nil, Options{
			Count: DefaultCount, Seed: DefaultSeed, Noise: DefaultNoise, Session: DefaultSession,
			Arrival: DefaultArrival, DialTimeout: DefaultDialTimeout, Replicas: DefaultReplicas, Budget: DefaultBudget,
			FirstResponse: DefaultFirstResponse,
		}},
		{"everything", []string{
			"--count", "50", "--seed", "7", "--strategy", "least-connections",
			"--latency", "a:25565=20ms,b:25565=50ms", "--latency", "c=1s",
			"--capacity", "a:25565=100", "--fail", "b:25565", "--fail", "c",
			"--noise", "0", "--session", "1m", "--arrival", "100ms", "--dial-timeout", "2s",
			"--health-interval", "5s", "--replicas", "4", "--refuse", "d", "--arrival-dist", "poisson",
			"--session-dist", "exp", "--budget", "10s", "--report-online", "a=0", "--report-max", "b=500",
			"--event", "5m:add:c,2m:latency:b:25565=+200ms", "--event", "1m:capacity:a:25565=50",
			"--sigma", "15ms", "--spike-percent", "5", "--spike", "100ms", "--server", "b=250ms", "--first-spike", "a",
			"--event", "3m:server:b=+250ms", "--first-response", "2s", "--custom-refusal", "a:25565",
		}, Options{
			Count: 50, Seed: 7, Override: strategy.LeastConnections,
			Latency:  map[string]time.Duration{"a:25565": 20 * time.Millisecond, "b:25565": 50 * time.Millisecond, "c": time.Second},
			Capacity: map[string]int{"a:25565": 100}, Fail: []string{"b:25565", "c"},
			Session: time.Minute, Arrival: 100 * time.Millisecond, DialTimeout: 2 * time.Second,
			HealthInterval: 5 * time.Second, Replicas: 4, Refuse: []string{"d"}, ArrivalDist: DistPoisson,
			SessionDist: DistExp, Budget: 10 * time.Second, ReportOnline: map[string]int{"a": 0}, ReportMax: map[string]int{"b": 500},
			Events: []Event{
				{At: 5 * time.Minute, Kind: EventAdd, Backend: "c"},
				{At: 2 * time.Minute, Kind: EventLatency, Backend: "b:25565", Latency: 200 * time.Millisecond, Relative: true},
				{At: time.Minute, Kind: EventCapacity, Backend: "a:25565", Capacity: 50},
				{At: 3 * time.Minute, Kind: EventServer, Backend: "b", Latency: 250 * time.Millisecond, Relative: true},
			},
			World: NoiseWorld{Sigma: 15 * time.Millisecond, SpikePercent: 5, Spike: 100 * time.Millisecond,
				Server: map[string]time.Duration{"b": 250 * time.Millisecond}, FirstSpike: []string{"a"}},
			FirstResponse: 2 * time.Second, CustomRefusal: []string{"a:25565"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o Options
			fs := flag.NewFlagSet("plan", flag.ContinueOnError)
			o.Flags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(o, tt.want) {
				t.Fatalf("parsed\n%+v\nwant\n%+v", o, tt.want)
			}
		})
	}
}

func TestFlagErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"unknown strategy", []string{"--strategy", "round_robin"}},
		{"latency without value", []string{"--latency", "a"}},
		{"bad duration", []string{"--latency", "a=fast"}},
		{"negative capacity", []string{"--capacity", "a=-1"}},
		{"event without kind", []string{"--event", "5m:c"}},
		{"event of unknown kind", []string{"--event", "5m:explode:c"}},
		{"event at a bad time", []string{"--event", "soon:add:c"}},
		{"latency event without value", []string{"--event", "1m:latency:c"}},
		{"negative capacity event", []string{"--event", "1m:capacity:c=-5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o Options
			fs := flag.NewFlagSet("plan", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			o.Flags(fs)
			if err := fs.Parse(tt.args); err == nil {
				t.Fatalf("Parse(%v) succeeded, want an error", tt.args)
			}
		})
	}
}

func TestOverrideWinsOverRouteStrategy(t *testing.T) {
	r, err := Run(Options{Strategy: strategy.Sequential, Override: strategy.RoundRobin, Backends: []string{"a", "b"}, Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	if r.Strategy != strategy.RoundRobin || r.Backends[0].Players != 5 {
		t.Fatalf("strategy %s with %d players on a, want round-robin 5", r.Strategy, r.Backends[0].Players)
	}
}
