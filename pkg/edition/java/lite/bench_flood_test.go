package lite_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// floodConfig is one wildcard route to b with the status cache on and no quotas: the
// flood comes from many addresses, so per-address quotas would not stop it.
func floodConfig(b string) string {
	return oneRoute("*.example.com", b).alsoHost("example.com").with("cachePingTTL: 10m").
		withTop("connectionTimeout: 2s").quotasOff("maxConnectionsPerIP: 0").String()
}

// BenchmarkStatusFlood is the status-cache flood of issue 12: 10,000 pings with unique
// protocol numbers and 10,000 with unique hosts against one route, while a normal
// player keeps pinging. It reports the backend fetches the flood cost, the heap growth
// it left behind (after GC, cache still full) and the normal pinger's p99 before,
// during and after the flood (during, the flood's own clients share the CPU). The
// backend's answer is 100 KiB, a server with a large favicon.
// The clock is frozen so no entry expires during the run. Run with -benchtime=1x.
func BenchmarkStatusFlood(b *testing.B) {
	body := statusJSONFavicon(100 << 10)
	be := newBackend(b, body)
	clk := newManualClock()
	p := startProxy(b, floodConfig(be.addr), proxyOpts{now: clk.Now})
	ping := func(protocol int32, host string) error {
		_, err := mctest.Ping(p.addr, protocol, host) // closes at once: the heap figure holds no client state
		return err
	}
	if err := ping(765, "play.example.com"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		before := be.StatusRequests()
		baseline := normalPings(b, ping, 300, nil)
		heap0 := heapAfterGC()
		var flooding atomic.Bool
		flooding.Store(true)
		var during []time.Duration
		var wg sync.WaitGroup
		wg.Go(func() { during = normalPings(b, ping, 0, &flooding) })
		flood(b, 10000, 16, func(i int) error { return ping(int32(100000+i), "play.example.com") })
		flood(b, 10000, 16, func(i int) error { return ping(765, fmt.Sprintf("u%d.example.com", i)) })
		flooding.Store(false)
		wg.Wait()
		heap1 := heapAfterGC()
		after := normalPings(b, ping, 300, nil)
		b.ReportMetric(float64(be.StatusRequests()-before), "fetches")
		b.ReportMetric(float64(int64(heap1)-int64(heap0))/(1<<20), "heapMiB")
		b.ReportMetric(float64(p99(baseline).Microseconds()), "p99-before-us")
		b.ReportMetric(float64(p99(during).Microseconds()), "p99-during-us")
		b.ReportMetric(float64(p99(after).Microseconds()), "p99-after-us")
		b.ReportMetric(float64(len(during)), "normal-pings")
	}
}

// normalPings pings the cached key n times, or while *while holds, and returns the
// latencies.
func normalPings(b *testing.B, ping func(int32, string) error, n int, while *atomic.Bool) []time.Duration {
	var out []time.Duration
	for i := 0; (n > 0 && i < n) || (while != nil && while.Load()); i++ {
		start := time.Now()
		if err := ping(765, "play.example.com"); err != nil {
			b.Errorf("normal ping: %v", err)
			return out
		}
		out = append(out, time.Since(start))
	}
	return out
}

// flood runs n pings on workers goroutines. Failed pings are counted, not fatal: a
// proxy may refuse a flood.
func flood(b *testing.B, n, workers int, ping func(i int) error) {
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if ping(int(i)) != nil {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	b.Logf("flood of %d: %d failed", n, failed.Load())
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func p99(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// statusJSONFavicon is a status answer of about size bytes, most of it a favicon.
func statusJSONFavicon(size int) string {
	return `{"version":{"name":"1.20.4","protocol":765},"players":{"max":100,"online":3},` +
		`"description":{"text":"flood"},"favicon":"data:image/png;base64,` + strings.Repeat("A", size) + `"}`
}
