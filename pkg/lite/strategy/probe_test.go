package strategy

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// gateProber holds every probe until the test answers it, so a test can
// look at the manager while a probe is in flight.
type gateProber struct {
	calls  chan string
	answer chan error
}

func newGateProber() *gateProber {
	return &gateProber{calls: make(chan string, 16), answer: make(chan error)}
}

func (p *gateProber) Probe(ctx context.Context, addr string) (Report, error) {
	p.calls <- addr
	select {
	case err := <-p.answer:
		return Report{RTT: time.Millisecond}, err
	case <-ctx.Done():
		return Report{}, ctx.Err()
	}
}

// runManager starts m.Run and returns a stop function that cancels it and
// checks that it returned nil.
func runManager(t *testing.T, m *Manager) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v, want nil", err)
		}
	}
}

// wait lets virtual time pass inside a synctest bubble; nothing real sleeps.
func wait(d time.Duration) {
	<-time.After(d)
	synctest.Wait()
}

func TestRunStopsAndLeavesNoGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		p := newGateProber()
		m := NewManager(Options{Seed: 1, Prober: p})
		m.SetRoutes([]Route{{Key: "r", Backends: []string{"a"}, Health: HealthCheck{Enabled: true}}})
		stop := runManager(t, m)
		synctest.Wait()
		if got := <-p.calls; got != "a" {
			t.Fatalf("first probe went to %q", got)
		}
		if err := m.Run(context.Background()); !errors.Is(err, ErrRunning) {
			t.Fatalf("second Run = %v, want ErrRunning", err)
		}
		stop() // with a probe still in flight
	})
}

func TestRunHealthChecksEveryJitteredInterval(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		p := &scriptProber{answer: func(string, int) (Report, error) { return Report{RTT: time.Millisecond}, nil }}
		m := NewManager(Options{Seed: 1, Prober: p})
		hc := HealthCheck{Enabled: true, Interval: 10 * time.Second}
		m.SetRoutes([]Route{{Key: "r", Backends: []string{"a", "b"}, Health: hc}})
		stop := runManager(t, m)
		defer stop()
		wait(100*time.Second + time.Millisecond)
		for _, addr := range []string{"a", "b"} {
			// One at start, then every 9-11s over 100s.
			if n := p.count(addr); n < 10 || n > 12 {
				t.Errorf("%s probed %d times in 100s at a 10s interval, want 10-12", addr, n)
			}
		}
	})
}

func TestRunProbesUnmeasuredLowestLatencyBackendAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		p := &scriptProber{answer: func(addr string, _ int) (Report, error) {
			return Report{RTT: map[string]time.Duration{"a": 30 * ms, "b": 5 * ms}[addr]}, nil
		}}
		m := NewManager(Options{Seed: 1, Prober: p})
		bs := []string{"a", "b"}
		m.SetRoutes([]Route{{Key: "r", Strategy: LowestLatency, Backends: bs}})
		stop := runManager(t, m)
		defer stop()
		synctest.Wait()
		for _, addr := range bs {
			if s := state(t, m, addr); !s.HasLatency || p.count(addr) != 1 {
				t.Fatalf("%s: %d probes, state %+v; want one probe at start", addr, p.count(addr), s)
			}
		}
		if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, []string{"b", "a"}) {
			t.Fatalf("Order = %v, want the faster b first", got)
		}
		// Every backend is measured each health interval, preferred or not.
		wait(100 * time.Second)
		if n := p.count("a"); n < 10 || n > 13 {
			t.Fatalf("a probed %d times in 100s, want one probe per 10s interval", n)
		}
	})
}

func TestRunRetestsEjectedBackendBeforePlayers(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		p := newGateProber()
		m := NewManager(Options{Seed: 1, Prober: p})
		bs := []string{"a", "b"}
		m.SetRoutes([]Route{{Key: "r", Backends: bs}})
		stop := runManager(t, m)
		defer stop()
		synctest.Wait()
		fail(m, "a", EjectFailures)
		until := state(t, m, "a").EjectedUntil
		wait(time.Until(until) - time.Millisecond)
		select {
		case addr := <-p.calls:
			t.Fatalf("%s probed before its ejection ended", addr)
		default:
		}
		wait(time.Millisecond)
		if got := <-p.calls; got != "a" {
			t.Fatalf("probe went to %q, want a", got)
		}
		if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, []string{"b", "a"}) {
			t.Fatalf("while a's retest is in flight Order = %v, want a still last", got)
		}
		p.answer <- nil
		synctest.Wait()
		// Recovery needs proof: rise (2) passing checks, an interval apart.
		if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, []string{"b", "a"}) {
			t.Fatalf("after one passing retest Order = %v, want a still last", got)
		}
		wait(DefaultHealthInterval)
		if got := <-p.calls; got != "a" {
			t.Fatalf("second retest went to %q, want a", got)
		}
		p.answer <- nil
		synctest.Wait()
		if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, bs) {
			t.Fatalf("after a passed its retest twice Order = %v, want %v", got, bs)
		}
	})
}
