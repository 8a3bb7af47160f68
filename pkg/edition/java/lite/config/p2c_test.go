package config

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// p2cRoute is a one-route config with the given extra route lines.
func p2cRoute(lines string) string {
	return `config:
  lite:
    enabled: true
    routes:
      - host: play.example.com
` + lines
}

// p2cDefaults is what a route's p2c keys are when the file leaves them out.
var p2cDefaults = P2CConfig{LatencyWeight: 250 * time.Millisecond, StaleAfter: 30 * time.Second, Saturation: 0.9}

// p2cKeyCases are one-route configs (the route's lines after its host) and
// the route they must give.
var p2cKeyCases = []struct {
	name     string
	lines    string
	backends []string
	capacity map[string]int
	p2c      P2CConfig
	status   StatusMode
}{
	{
		name:     "omitted keys are the defaults",
		lines:    "        backend: a:25565\n        strategy: p2c\n",
		backends: []string{"a:25565"},
		p2c:      p2cDefaults,
		status:   StatusBackend,
	},
	{
		name: "every key set",
		lines: `        backend: [a:25565, b:25565]
        strategy: p2c
        latencyWeight: 100ms
        staleAfter: 1m
        saturation: 0.75
        peers: 3
        drainMotd: '(?i)maintenance'
        status: aggregate
`,
		backends: []string{"a:25565", "b:25565"},
		p2c:      P2CConfig{LatencyWeight: 100 * time.Millisecond, StaleAfter: time.Minute, Saturation: 0.75, Peers: 3},
		status:   StatusAggregate,
	},
	{
		name:     "bare numbers are milliseconds and saturation 1 is allowed",
		lines:    "        backend: a\n        strategy: p2c\n        latencyWeight: 400\n        staleAfter: 5000\n        saturation: 1\n",
		backends: []string{"a"},
		p2c:      P2CConfig{LatencyWeight: 400 * time.Millisecond, StaleAfter: 5 * time.Second, Saturation: 1},
		status:   StatusBackend,
	},
	{
		name: "list items may carry a capacity",
		lines: `        strategy: p2c
        backend:
          - a:25565
          - {address: b:25565, capacity: 100}
          - address: c:25565
`,
		backends: []string{"a:25565", "b:25565", "c:25565"},
		capacity: map[string]int{"b:25565": 100},
		p2c:      p2cDefaults,
		status:   StatusBackend,
	},
	{
		name:     "slow start lasts as set",
		lines:    "        backend: a\n        strategy: least-connections\n        slowStart: 20s\n",
		backends: []string{"a"},
		p2c:      P2CConfig{LatencyWeight: 250 * time.Millisecond, StaleAfter: 30 * time.Second, Saturation: 0.9, SlowStart: 20 * time.Second},
		status:   StatusBackend,
	},
	{
		name:     "slow start 0 is off",
		lines:    "        backend: a\n        strategy: p2c\n        slowStart: 0\n",
		backends: []string{"a"},
		p2c:      P2CConfig{LatencyWeight: 250 * time.Millisecond, StaleAfter: 30 * time.Second, Saturation: 0.9, SlowStart: -1},
		status:   StatusBackend,
	},
	{
		name:     "empty drain pattern is none",
		lines:    "        backend: a\n        strategy: p2c\n        drainMotd: ''\n",
		backends: []string{"a"},
		p2c:      p2cDefaults,
		status:   StatusBackend,
	},
}

func TestP2CKeys(t *testing.T) {
	for _, tt := range p2cKeyCases {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, p2cRoute(tt.lines)).Lite.Routes[0]
			drain := r.P2C.Drain
			r.P2C.Drain = nil
			if !slices.Equal(r.Backend, tt.backends) || !maps.Equal(r.Capacity, tt.capacity) || r.P2C != tt.p2c || r.Status != tt.status {
				t.Fatalf("route = backends %q capacity %v p2c %+v status %q; want %q %v %+v %q",
					r.Backend, r.Capacity, r.P2C, r.Status, tt.backends, tt.capacity, tt.p2c, tt.status)
			}
			if strings.Contains(tt.lines, "maintenance") != (drain != nil) {
				t.Fatalf("drain pattern %v", drain)
			}
			if drain != nil && (!drain.MatchString("§cMAINTENANCE") || drain.MatchString("Lobby")) {
				t.Fatalf("drain pattern %v matches the wrong MOTDs", drain)
			}
		})
	}
}

func TestP2CKeyErrors(t *testing.T) {
	tests := []struct {
		name, lines, want string
	}{
		{"zero latency weight", "        backend: a\n        latencyWeight: 0s\n",
			"config.yml:7: config.lite.routes[0].latencyWeight: must be greater than 0, got 0s"},
		{"saturation above one", "        backend: a\n        saturation: 1.5\n",
			"config.yml:7: config.lite.routes[0].saturation: 1.5 out of range (want more than 0, at most 1)"},
		{"saturation zero", "        backend: a\n        saturation: 0\n",
			"config.yml:7: config.lite.routes[0].saturation: 0 out of range (want more than 0, at most 1)"},
		{"negative slow start", "        backend: a\n        slowStart: -5s\n",
			"config.yml:7: config.lite.routes[0].slowStart: must be at least 0 (0 turns slow start off), got -5s"},
		{"negative peers", "        backend: a\n        peers: -1\n",
			"config.yml:7: config.lite.routes[0].peers: must be at least 0, got -1"},
		{"bad drain pattern", "        backend: a\n        drainMotd: '(maintenance'\n",
			"config.yml:7: config.lite.routes[0].drainMotd: invalid regular expression \"(maintenance\": error parsing regexp: missing closing ): `(maintenance`"},
		{"unknown status mode", "        backend: a\n        status: sum\n",
			`config.yml:7: config.lite.routes[0].status: unknown "sum" (want backend or aggregate)`},
		{"capacity zero", "        backend:\n          - {address: a, capacity: 0}\n",
			"config.yml:7: config.lite.routes[0].backend[0].capacity: must be at least 1, got 0"},
		{"item without address", "        backend:\n          - {capacity: 10}\n",
			"config.yml:7: config.lite.routes[0].backend[0].address: missing (want host[:port])"},
		{"misspelled item key", "        backend:\n          - {adress: a}\n",
			`config.yml:7: config.lite.routes[0].backend[0].adress: unknown key "adress" (did you mean "address"?)`},
		{"invalid address in an item", "        backend:\n          - {address: 'a:99999'}\n",
			`config.yml:7: config.lite.routes[0].backend[0].address: invalid backend "a:99999": `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parse(t, p2cRoute(tt.lines))
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Parse error = %v, want %q", err, tt.want)
			}
			// The address checks own their wording; ours is matched whole.
			if got := list[0].Error(); !strings.HasPrefix(got, tt.want) {
				t.Fatalf("first error\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestP2CKeyWarnings(t *testing.T) {
	tests := []struct {
		name, lines string
		want        []string
	}{
		{"defaults on another strategy are fine", "        backend: a\n        latencyWeight: 250ms\n        saturation: 0.9\n", nil},
		{"tuning another strategy", "        backend: a\n        strategy: random\n        peers: 2\n",
			[]string{"config.yml:5: config.lite.routes[0]: latencyWeight, staleAfter, saturation, peers and drainMotd have no effect: strategy is random, not p2c, least-loaded, weighted-random or lowest-latency"}},
		{"slow start on a strategy that does not rank", "        backend: a\n        strategy: round-robin\n        slowStart: 30s\n",
			[]string{"config.yml:5: config.lite.routes[0]: slowStart has no effect: strategy round-robin does not rank backends"}},
		{"slow start alone on a ranking strategy", "        backend: a\n        strategy: least-connections\n        slowStart: 30s\n", nil},
		{"capacity without a reader", "        backend: [{address: a, capacity: 5}]\n",
			[]string{"config.yml:5: config.lite.routes[0]: backend capacity has no effect: only strategies p2c, least-loaded, weighted-random, lowest-latency and status: aggregate use it"}},
		{"capacity for the aggregate", "        backend: [{address: a, capacity: 5}]\n        status: aggregate\n", nil},
		{"capacity on a template", "        host: '*.example.com'\n        backend: [{address: '$1.svc', capacity: 5}]\n        strategy: p2c\n",
			[]string{"config.yml:7: config.lite.routes[0].backend[0].address: capacity is ignored on a templated backend"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := p2cRoute(tt.lines)
			if strings.HasPrefix(tt.lines, "        host:") {
				src = strings.Replace(src, "      - host: play.example.com\n", "      -\n", 1)
			}
			wantWarnings(t, src, tt.want)
		})
	}
}
