package strategy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

func TestPassiveEjectionNeedsThreeConsecutiveFailures(t *testing.T) {
	tests := []struct {
		name        string
		outcomes    string // f = failed dial, s = successful dial
		wantEjected bool
	}{
		{"three failures in a row", "fff", true},
		{"two failures", "ff", false},
		{"one success between failures does not clear them", "ffsf", true},
		{"ten successes in a row forget one failure", "ffssssssssssf", false},
		{"and only one", "ffssssssssssff", true},
		{"a few successes forget nothing (a flapping backend)", "ffsssf", true},
		{"a healthy backend's rare failures are forgotten", "fssssssssssfssssssssssssssssssssf", false},
		{"run completes after a success", "sfff", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bs := []string{"a", "b"}
			m, _ := newTestManager(t, Sequential, bs...)
			for _, o := range tt.outcomes {
				if o == 'f' {
					m.ObserveDial("a", 0, errRefused)
				} else {
					serve(m, "a")
				}
			}
			if got := state(t, m, "a").Health == HealthEjected; got != tt.wantEjected {
				t.Fatalf("ejected = %v after %q, want %v", got, tt.outcomes, tt.wantEjected)
			}
			want := []string{"a", "b"}
			if tt.wantEjected {
				want = []string{"b", "a"}
			}
			if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, want) {
				t.Fatalf("Order = %v, want %v (demoted, never dropped)", got, want)
			}
		})
	}
}

func TestCancelledDialIsNotABackendFailure(t *testing.T) {
	m, _ := newTestManager(t, Sequential, "a", "b")
	for range 2 * EjectFailures {
		m.ObserveDial("a", 0, fmt.Errorf("dial a: %w", context.Canceled))
	}
	if got := state(t, m, "a").Health; got != HealthUnknown {
		t.Fatalf("health %q after cancelled dials, want unknown", got)
	}
	for range EjectFailures {
		m.ObserveDial("a", 0, fmt.Errorf("dial a: %w", context.DeadlineExceeded))
	}
	if got := state(t, m, "a").Health; got != HealthEjected {
		t.Fatalf("health %q after timed-out dials, want ejected", got)
	}
}

func TestEjectionBackoffDoublesWithJitter(t *testing.T) {
	m, clk := newTestManager(t, Sequential, "a", "b")
	fail(m, "a", EjectFailures)
	for n := 1; n <= 7; n++ {
		d := EjectionDuration(n)
		left := state(t, m, "a").EjectedUntil.Sub(clk.Now())
		if left > d || left < d-d/10 {
			t.Fatalf("ejection %d lasts %v, want within [%v, %v]", n, left, d-d/10, d)
		}
		// Without probes the first player after the ejection is the
		// retest; its failure ejects again, for longer.
		clk.Advance(left)
		if got := state(t, m, "a").Health; got == HealthEjected {
			t.Fatalf("ejection %d still in force at its end", n)
		}
		fail(m, "a", 1)
	}
}

func TestEjectionDuration(t *testing.T) {
	want := []time.Duration{30 * time.Second, 60 * time.Second, 120 * time.Second, 240 * time.Second, 300 * time.Second, 300 * time.Second, 300 * time.Second}
	for i, w := range want {
		if got := EjectionDuration(i + 1); got != w {
			t.Errorf("EjectionDuration(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := EjectionDuration(1000); got != EjectMax {
		t.Errorf("EjectionDuration(1000) = %v, want %v", got, EjectMax)
	}
}

func TestEjectionJitterSpreadsRetests(t *testing.T) {
	bs := addrs(20)
	m, clk := newTestManager(t, Sequential, bs...)
	ends := map[time.Duration]bool{}
	for _, b := range bs {
		fail(m, b, EjectFailures)
		ends[state(t, m, b).EjectedUntil.Sub(clk.Now())] = true
	}
	if len(ends) < 10 {
		t.Fatalf("20 backends ejected together got only %d distinct ejection ends", len(ends))
	}
}

func TestEjectionBackoffResetsAfterStayingUp(t *testing.T) {
	tests := []struct {
		name    string
		upFor   time.Duration
		wantMax time.Duration
	}{
		{"fails again soon: doubled", time.Minute, 60 * time.Second},
		{"stayed up for the maximum: back to base", EjectMax, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, clk := newTestManager(t, Sequential, "a", "b")
			fail(m, "a", EjectFailures)
			clk.Advance(EjectBase)
			serve(m, "a")
			clk.Advance(tt.upFor)
			fail(m, "a", EjectFailures)
			left := state(t, m, "a").EjectedUntil.Sub(clk.Now())
			if left > tt.wantMax || left < tt.wantMax-tt.wantMax/10 {
				t.Fatalf("second ejection lasts %v, want about %v", left, tt.wantMax)
			}
		})
	}
}

func TestFailedStatusExchangesEject(t *testing.T) {
	for _, err := range []error{errRefused, context.DeadlineExceeded, errors.New("status response: bad JSON")} {
		m, _ := newTestManager(t, Sequential, "a", "b")
		for range EjectFailures {
			m.ObserveStatus("a", Report{}, err)
		}
		if got := state(t, m, "a").Health; got != HealthEjected {
			t.Fatalf("health %q after %d failed status exchanges (%v), want ejected", got, EjectFailures, err)
		}
	}
}

func TestStatusExchangesRetestEjectedBackendAfterItsEjection(t *testing.T) {
	m, clk := newTestManager(t, Sequential, "a", "b")
	fail(m, "a", EjectFailures)
	good := Report{RTT: time.Millisecond, Online: 3, Max: 20, HasPlayers: true}
	m.ObserveStatus("a", good, nil)
	if got := state(t, m, "a").EjectedUntil; got.IsZero() {
		t.Fatal("a last-resort status exchange during the ejection ended it")
	}
	clk.Advance(EjectBase)
	for range DefaultHealthRise {
		m.ObserveStatus("a", good, nil)
	}
	s := state(t, m, "a")
	if s.Health != HealthHealthy || !s.EjectedUntil.IsZero() {
		t.Fatalf("after a real status exchange health %q until %v, want healthy", s.Health, s.EjectedUntil)
	}
	if s.Report == nil || s.Report.Online != 3 || s.Report.Max != 20 {
		t.Fatalf("report %+v, want online 3 of 20", s.Report)
	}
}

func TestHealthStates(t *testing.T) {
	m, _ := newTestManager(t, Sequential, "new", "ok", "bad")
	serve(m, "ok")
	fail(m, "bad", EjectFailures)
	want := map[string]string{"new": HealthUnknown, "ok": HealthHealthy, "bad": HealthEjected}
	for addr, w := range want {
		if got := state(t, m, addr).Health; got != w {
			t.Errorf("%s health %q, want %q", addr, got, w)
		}
	}
}

func TestProbeNotPlayerRetestsEjectedBackend(t *testing.T) {
	tests := []struct {
		name      string
		probeErr  error
		wantOrder []string
		wantState string
	}{
		{"probe passes: players return", nil, []string{"a", "b"}, HealthHealthy},
		{"probe fails: ejected again", errRefused, []string{"b", "a"}, HealthEjected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			p := &scriptProber{answer: func(string, int) (Report, error) { return Report{RTT: time.Millisecond}, tt.probeErr }}
			m := NewManager(Options{Seed: 1, Now: clk.Now, Prober: p})
			bs := []string{"a", "b"}
			m.SetRoutes([]Route{{Key: "r", Backends: bs}})
			ctx := context.Background()
			m.ProbeDue(ctx) // nothing due, but probes are now driven
			fail(m, "a", EjectFailures)
			clk.Advance(EjectBase)
			if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, []string{"b", "a"}) {
				t.Fatalf("ejection over, no probe yet: Order = %v, want a still last", got)
			}
			if n := m.ProbeDue(ctx); n != 1 || p.count("a") != 1 {
				t.Fatalf("ProbeDue ran %d probes (%d of a), want exactly a's retest", n, p.count("a"))
			}
			if tt.probeErr == nil {
				// Recovery needs proof: rise passing checks, an interval apart.
				if got := state(t, m, "a").Health; got != HealthEjected {
					t.Fatalf("after one passing probe health %q, want still ejected", got)
				}
				clk.Advance(DefaultHealthInterval)
				if n := m.ProbeDue(ctx); n != 1 || p.count("a") != DefaultHealthRise {
					t.Fatalf("ProbeDue ran %d probes (%d of a), want a's second retest", n, p.count("a"))
				}
			}
			if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, tt.wantOrder) {
				t.Fatalf("after the probe Order = %v, want %v", got, tt.wantOrder)
			}
			if got := state(t, m, "a").Health; got != tt.wantState {
				t.Fatalf("after the probe health %q, want %q", got, tt.wantState)
			}
		})
	}
}

func TestActiveHealthCheckRiseAndFall(t *testing.T) {
	clk := newClock()
	up := map[string]bool{"a": true, "b": true}
	p := &scriptProber{answer: func(addr string, _ int) (Report, error) {
		if up[addr] {
			return Report{RTT: time.Millisecond}, nil
		}
		return Report{}, fmt.Errorf("probe %s: %w", addr, errRefused)
	}}
	var logs mctest.Logs
	m := NewManager(Options{Seed: 1, Now: clk.Now, Prober: p, Log: logs.Logger(1)})
	bs := []string{"a", "b"}
	hc := HealthCheck{Enabled: true, Interval: 10 * time.Second, Rise: 2, Fall: 3}
	m.SetRoutes([]Route{{Key: "r", Backends: bs, Health: hc}})
	ctx := context.Background()
	step := func() {
		t.Helper()
		if n := m.ProbeDue(ctx); n != 2 {
			t.Fatalf("ProbeDue ran %d probes, want both backends' checks", n)
		}
		clk.Advance(hc.Interval + hc.Interval/10) // past the jittered interval
	}
	step()
	up["a"] = false
	for i, want := range []string{HealthHealthy, HealthHealthy, HealthDown, HealthDown} {
		step()
		if got := state(t, m, "a").Health; got != want {
			t.Fatalf("after %d failed checks health %q, want %q", i+1, got, want)
		}
	}
	if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("Order = %v with a down, want a demoted", got)
	}
	up["a"] = true
	for i, want := range []string{HealthDown, HealthHealthy} {
		step()
		if got := state(t, m, "a").Health; got != want {
			t.Fatalf("after %d passing checks health %q, want %q", i+1, got, want)
		}
	}
	if d, u := logs.Count("backend down"), logs.Count("backend up"); d != 1 || u != 1 {
		t.Fatalf("logged down %d times and up %d times, want once each", d, u)
	}
}

func TestPanicModeTriesEveryBackendInStrategyOrder(t *testing.T) {
	tests := []struct {
		name  string
		eject []string
		want  []string
	}{
		{"one of three ejected: demoted", []string{"a"}, []string{"b", "c", "a"}},
		{"two of three ejected: panic, config order", []string{"a", "b"}, []string{"a", "b", "c"}},
		{"all ejected: panic keeps the order", []string{"a", "b", "c"}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bs := []string{"a", "b", "c"}
			m, _ := newTestManager(t, Sequential, bs...)
			for _, b := range tt.eject {
				fail(m, b, EjectFailures)
			}
			if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, tt.want) {
				t.Fatalf("Order = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStateChangesAreLoggedOnce(t *testing.T) {
	var logs mctest.Logs
	clk := newClock()
	m := NewManager(Options{Seed: 1, Now: clk.Now, Log: logs.Logger(1)})
	bs := []string{"dead", "b", "c"}
	m.SetRoutes([]Route{{Key: "r", Backends: bs}})
	for range 100 {
		// Every player still tries the dead backend last (it is demoted)
		// and fails there; that must not log.
		m.Order("r", bs, IntentLogin)
		fail(m, "dead", 1)
	}
	fail(m, "b", EjectFailures) // 2 of 3 out: panic
	for range 100 {
		m.Order("r", bs, IntentLogin)
	}
	clk.Advance(EjectMax)
	serve(m, "b")
	m.Order("r", bs, IntentLogin)
	checks := map[string]int{
		"backend ejected": 2,
		"panic mode":      2, // entered and left
		"recovered":       1,
	}
	for msg, want := range checks {
		if got := logs.Count(msg); got != want {
			t.Errorf("%q logged %d times, want %d", msg, got, want)
		}
	}
}

// A login burst on a single-backend route fills its attempts in flight (busy), which
// demotes it and puts the ordering in panic mode; that is not a health event and logs
// nothing, however many logins the burst has. A backend that is ejected still logs.
func TestBusyBackendIsNoPanicInTheLog(t *testing.T) {
	var logs mctest.Logs
	m := NewManager(Options{Seed: 1, Now: newClock().Now, Log: logs.Logger(1)})
	bs := []string{"only"}
	m.SetRoutes([]Route{{Key: "r", Backends: bs}})
	first := m.Reserve("only")
	first.Settle(time.Millisecond, nil)
	first.Release()
	var held []*Lease
	for range 50 {
		if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, bs) {
			t.Fatalf("Order = %v, want the one backend", got)
		}
		l := m.Reserve("only")
		held = append(held, l)
		if len(held) > MaxUnsettled+1 { // logins joining while others arrive
			held[0].Settle(time.Millisecond, nil)
			held[0].Release()
			held = held[1:]
		}
	}
	for _, l := range held {
		l.Release()
	}
	if n := logs.Count("panic mode"); n != 0 {
		t.Fatalf("a busy backend logged panic mode %d times", n)
	}
	fail(m, "only", EjectFailures)
	m.Order("r", bs, IntentLogin)
	if n := logs.Count("panic mode"); n != 1 {
		t.Fatalf("an ejected backend logged panic mode %d times, want 1", n)
	}
}
