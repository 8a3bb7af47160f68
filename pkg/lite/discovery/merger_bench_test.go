package discovery_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/mctest"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// fleet is n discovered routes as a Docker source publishes them, each with the
// settings a labelled container typically carries.
func fleet(n int) []discovery.Route {
	out := make([]discovery.Route, n)
	for i := range out {
		out[i] = discovery.Route{Origin: fmt.Sprintf("docker mc-%d", i), Hosts: []string{fmt.Sprintf("mc-%d.example.com", i)},
			KeyPrefix: "gate.", Container: fmt.Sprintf("mc-%d", i),
			Backends: []discovery.Backend{{Addr: fmt.Sprintf("10.1.%d.%d:25565", i/256, i%256)}},
			Settings: map[string]string{"strategy": "least-connections", "fallback": `{motd: "§aserver ` + fmt.Sprint(i) + ` is starting"}`}}
	}
	return out
}

// BenchmarkDiscoveryEvent is the CPU one discovery event costs with 2,000
// discovered routes in force: one container of the fleet crash-loops, so its
// route loses and regains its backend on alternate events, and the merged
// config is applied to a real proxy. "applied" applies every event (the
// first of a burst, or every one without coalescing); "in a burst" is an
// event within DefaultCoalesce of the last apply, which waits to be applied
// with the rest of its burst.
func BenchmarkDiscoveryEvent(b *testing.B) {
	b.Run("applied", func(b *testing.B) { benchEvents(b, discovery.MergerOptions{Coalesce: -1}) })
	b.Run("in a burst", func(b *testing.B) {
		clk := mctest.NewTimerClock(time.Time{}) // never advanced: every event waits
		benchEvents(b, discovery.MergerOptions{Now: clk.Now, AfterFunc: clk.AfterFunc})
	})
}

func benchEvents(b *testing.B, o discovery.MergerOptions) {
	cfg, _, err := config.ParseEnv([]byte("config:\n  lite:\n    enabled: true\n    discovery:\n      docker: {enabled: true}\n"), "config.yml", nil)
	if err != nil {
		b.Fatal(err)
	}
	p, err := lite.New(cfg, lite.Options{Seed: 1, Log: logr.Discard()})
	if err != nil {
		b.Fatal(err)
	}
	o.Apply = p.Reload
	m := discovery.NewMerger(o)
	if err := m.SetFile(cfg); err != nil {
		b.Fatal(err)
	}
	up, down := fleet(2000), fleet(2000)
	down[0].Backends = nil
	m.Replace("docker", up)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		set := up
		if i%2 == 0 {
			set = down
		}
		m.Replace("docker", set)
		i++
	}
	b.StopTimer()
	m.Close()
}
