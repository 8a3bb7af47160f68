package feed_test

import (
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/events"
	"go.minekube.com/gate/pkg/lite/events/feed"
	"go.minekube.com/gate/pkg/lite/metrics"
	"go.minekube.com/gate/pkg/lite/players"
)

// BenchmarkObserveSession is what the events add to one session on the
// connection's goroutines: its joined and ended through the Feed (the live table
// and the bus), with no subscriber and with one whose queue a reader drains.
func BenchmarkObserveSession(b *testing.B) {
	for _, subs := range []int{0, 1} {
		b.Run([]string{"no-subscriber", "one-subscriber"}[subs], func(b *testing.B) {
			bus := events.NewBus(0)
			if subs > 0 {
				s, _ := bus.Subscribe(events.AllTypes, 1<<16, 0)
				done := make(chan struct{})
				go func() {
					defer close(done)
					for range s.C() {
					}
				}()
				defer func() { s.Close(); <-done }()
			}
			f := feed.New(bus, events.NewSessions())
			p := &players.Player{Name: "Steve"}
			client := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5000}
			e := lite.Event{Client: client, Route: host, VHost: host, Backend: "10.0.0.1:25565", Intent: 2, Player: p}
			b.ReportAllocs()
			for i := range b.N {
				e.ConnID, e.Kind, e.Time = uint64(i), lite.EventJoined, time.Now()
				f.Observe(&e)
				e.Kind, e.Duration = lite.EventEnded, time.Second
				f.Observe(&e)
			}
		})
	}
}

// BenchmarkObserveSessionMetrics is today's observer (the Prometheus metrics) on
// the same two events, for comparison.
func BenchmarkObserveSessionMetrics(b *testing.B) {
	m := metrics.New(metrics.Options{NoProcess: true})
	e := lite.Event{Route: host, VHost: host, Backend: "10.0.0.1:25565", BackendTemplate: "10.0.0.1:25565", Intent: 2}
	b.ReportAllocs()
	for i := range b.N {
		e.ConnID, e.Kind = uint64(i), lite.EventJoined
		m.Observe(&e)
		e.Kind, e.Duration = lite.EventEnded, time.Second
		m.Observe(&e)
	}
}

// BenchmarkSessionThroughProxy is one whole session over loopback (connect, login,
// echo, close) with today's proxy and with the event feed and a stream subscriber.
func BenchmarkSessionThroughProxy(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "today", true: "events"}[on], func(b *testing.B) {
			w := newWorld(b, on)
			if on {
				s, _ := w.bus.Subscribe(events.AllTypes, 1<<16, 0)
				done := make(chan struct{})
				go func() {
					defer close(done)
					for range s.C() {
					}
				}()
				defer func() { s.Close(); <-done }()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				w.session(b, "Steve")
			}
		})
	}
}
