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
			Arrival: DefaultArrival, DialTimeout: DefaultDialTimeout,
		}},
		{"everything", []string{
			"--count", "50", "--seed", "7", "--strategy", "least-connections",
			"--latency", "a:25565=20ms,b:25565=50ms", "--latency", "c=1s",
			"--capacity", "a:25565=100", "--fail", "b:25565", "--fail", "c",
			"--noise", "0", "--session", "1m", "--arrival", "100ms", "--dial-timeout", "2s",
			"--health-interval", "5s",
		}, Options{
			Count: 50, Seed: 7, Override: strategy.LeastConnections,
			Latency:  map[string]time.Duration{"a:25565": 20 * time.Millisecond, "b:25565": 50 * time.Millisecond, "c": time.Second},
			Capacity: map[string]int{"a:25565": 100}, Fail: []string{"b:25565", "c"},
			Session: time.Minute, Arrival: 100 * time.Millisecond, DialTimeout: 2 * time.Second,
			HealthInterval: 5 * time.Second,
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
