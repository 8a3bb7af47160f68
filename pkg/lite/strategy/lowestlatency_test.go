package strategy

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

const ms = time.Millisecond

// incumbent reads route r's lowest-latency incumbent.
func incumbent(t testing.TB, m *Manager) string {
	t.Helper()
	m.mu.RLock()
	s, ok := m.routes["r"].strat.(*lowestLatency)
	m.mu.RUnlock()
	if !ok {
		t.Fatal("route r is not lowest-latency")
	}
	inc, _ := s.state()
	return inc
}

func measure(m *Manager, addr string, rtt time.Duration) {
	m.ObserveStatus(addr, Report{RTT: rtt}, nil)
}

func TestLowestLatencyPrefersBackend50msFaster(t *testing.T) {
	bs := []string{"slow", "fast"}
	m, _ := newTestManager(t, LowestLatency, bs...)
	measure(m, "slow", 60*ms)
	measure(m, "fast", 10*ms)
	got := firsts(m, "r", bs, 20, true)
	if got["fast"] != 20 {
		t.Fatalf("placements %v, want all 20 on the 50ms faster backend", got)
	}
}

func TestLowestLatencyIncumbentNeedsThreeConfirmations(t *testing.T) {
	bs := []string{"a", "b", "c"}
	m, clk := newTestManager(t, LowestLatency, bs...)
	measure(m, "a", 100*ms)
	m.Order("r", bs, IntentLogin)
	if got := incumbent(t, m); got != "a" {
		t.Fatalf("incumbent %q, want the only measured backend a", got)
	}
	for i, want := range []string{"a", "a", "b"} {
		clk.Advance(LatencyRoundSpacing)
		measure(m, "a", 100*ms)
		measure(m, "b", 50*ms)
		m.Order("r", bs, IntentLogin)
		if got := incumbent(t, m); got != want {
			t.Fatalf("after %d confirming measurements incumbent is %q, want %q", i+1, got, want)
		}
	}
	// c beats b by far, three times, but b just took over: cooldown.
	for range 3 {
		clk.Advance(LatencyRoundSpacing)
		measure(m, "b", 50*ms)
		measure(m, "c", 10*ms)
		m.Order("r", bs, IntentLogin)
	}
	clk.Advance(LatencyCooldown - 3*LatencyRoundSpacing - time.Second)
	m.Order("r", bs, IntentLogin)
	if got := incumbent(t, m); got != "b" {
		t.Fatalf("incumbent %q %v after the last change, want b until the cooldown ends", got, LatencyCooldown-time.Second)
	}
	clk.Advance(time.Second)
	m.Order("r", bs, IntentLogin)
	if got := incumbent(t, m); got != "c" {
		t.Fatalf("incumbent %q after the cooldown, want c", got)
	}
}

func TestLowestLatencyConfirmationsMustBeConsecutive(t *testing.T) {
	clk := newClock()
	s := newLowestLatency(Env{Seed: 1, Now: clk.Now})
	inc := Candidate{Addr: "inc", Index: 0, Latency: 100 * ms, HasLatency: true, Samples: 1}
	order := make([]int, 2)
	s.Order([]Candidate{inc}, IntentLogin, order[:1])
	steps := []struct {
		chal time.Duration
		want string
	}{
		{50 * ms, "inc"},
		{50 * ms, "inc"},
		{90 * ms, "inc"}, // within the margin: the run breaks
		{50 * ms, "inc"},
		{50 * ms, "inc"},
		{50 * ms, "chal"},
	}
	for i, st := range steps {
		clk.Advance(LatencyRoundSpacing)
		inc.Samples = uint64(i + 2)
		chal := Candidate{Addr: "chal", Index: 1, Latency: st.chal, HasLatency: true, Samples: uint64(i + 1)}
		s.Order([]Candidate{inc, chal}, IntentLogin, order)
		if got, _ := s.state(); got != st.want {
			t.Fatalf("step %d (challenger %v): incumbent %q, want %q", i+1, st.chal, got, st.want)
		}
	}
}

func TestLowestLatencyMargin(t *testing.T) {
	tests := []struct {
		name       string
		inc, chal  time.Duration
		wantSwitch bool
	}{
		{"19ms faster than 100ms is noise", 100 * ms, 81 * ms, false},
		{"20ms faster than 100ms switches", 100 * ms, 80 * ms, true},
		{"29ms faster than 200ms is under 15%", 200 * ms, 171 * ms, false},
		{"30ms faster than 200ms is 15%", 200 * ms, 170 * ms, true},
		{"19ms faster than 40ms is under 20ms", 40 * ms, 21 * ms, false},
		{"twice as fast", 40 * ms, 20 * ms, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			s := newLowestLatency(Env{Seed: 1, Now: clk.Now})
			order := make([]int, 2)
			inc := Candidate{Addr: "inc", Index: 0, Latency: tt.inc, HasLatency: true, Samples: 1}
			s.Order([]Candidate{inc}, IntentLogin, order[:1])
			for n := range uint64(LatencyConfirmations) {
				clk.Advance(LatencyRoundSpacing)
				inc.Samples = n + 2
				chal := Candidate{Addr: "chal", Index: 1, Latency: tt.chal, HasLatency: true, Samples: n + 1}
				s.Order([]Candidate{inc, chal}, IntentLogin, order)
			}
			got, _ := s.state()
			if want := map[bool]string{true: "chal", false: "inc"}[tt.wantSwitch]; got != want {
				t.Fatalf("incumbent %q after %d measurements, want %q", got, LatencyConfirmations, want)
			}
		})
	}
}

func TestLowestLatencyUnmeasuredIsNeutral(t *testing.T) {
	t.Run("between the best and the worst", func(t *testing.T) {
		bs := []string{"worst", "new", "best"}
		m, _ := newTestManager(t, LowestLatency, bs...)
		measure(m, "best", 10*ms)
		measure(m, "worst", 200*ms)
		want := []string{"best", "new", "worst"}
		if got := m.Order("r", bs, IntentLogin); !slices.Equal(got, want) {
			t.Fatalf("Order = %v, want %v", got, want)
		}
	})
	t.Run("shares with the only measured one", func(t *testing.T) {
		bs := []string{"measured", "new"}
		m, _ := newTestManager(t, LowestLatency, bs...)
		measure(m, "measured", 20*ms)
		got := firsts(m, "r", bs, 20, true)
		if got["measured"] != 10 || got["new"] != 10 {
			t.Fatalf("placements %v, want 10/10: an unmeasured backend is not starved", got)
		}
	})
}

func TestLowestLatencySharesByLoadWithinMargin(t *testing.T) {
	bs := []string{"a", "b", "far"}
	m, _ := newTestManager(t, LowestLatency, bs...)
	measure(m, "a", 30*ms)
	measure(m, "b", 45*ms)
	measure(m, "far", 80*ms)
	got := firsts(m, "r", bs, 30, true)
	if got["a"] != 15 || got["b"] != 15 || got["far"] != 0 {
		t.Fatalf("placements %v, want a and b (within 20ms) sharing 15/15 and none on far", got)
	}
}

func TestLowestLatencyFadesAfterTTL(t *testing.T) {
	bs := []string{"a", "b"}
	m, clk := newTestManager(t, LowestLatency, bs...)
	measure(m, "a", 10*ms)
	clk.Advance(time.Minute)
	measure(m, "b", 100*ms)
	m.Order("r", bs, IntentLogin)
	if got := incumbent(t, m); got != "a" {
		t.Fatalf("incumbent %q, want a", got)
	}
	clk.Advance(LatencyTTL - time.Minute - time.Nanosecond)
	if !state(t, m, "a").HasLatency {
		t.Fatal("a's sample faded before its TTL")
	}
	clk.Advance(time.Nanosecond)
	if s := state(t, m, "a"); s.HasLatency {
		t.Fatalf("a still has latency %v after the TTL", s.Latency)
	}
	// a is neutral now: the mean of the measured ones, i.e. b's 100ms, so
	// they share by load and b holds the title without a stale rival.
	if got := firsts(m, "r", bs, 10, true); got["a"] != 5 || got["b"] != 5 {
		t.Fatalf("placements %v after a faded, want 5/5", got)
	}
	if got := incumbent(t, m); got != "b" {
		t.Fatalf("incumbent %q after a faded, want b", got)
	}
}

func TestLatencyEstimateIsRobust(t *testing.T) {
	tests := []struct {
		name    string
		samples []time.Duration
		want    time.Duration
	}{
		{"first sample is the estimate", []time.Duration{100 * ms}, 100 * ms},
		{"an unlucky first sample is corrected at once", []time.Duration{167 * ms, 20 * ms}, 20 * ms},
		{"a spike is ignored", []time.Duration{20 * ms, 21 * ms, 19 * ms, 170 * ms}, 20500 * time.Microsecond},
		{"zero RTT adds nothing", []time.Duration{100 * ms, 0}, 100 * ms},
		{"a real change takes over the window", []time.Duration{20 * ms, 20 * ms, 20 * ms, 70 * ms, 70 * ms, 70 * ms, 70 * ms}, 70 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestManager(t, LowestLatency, "a")
			for _, d := range tt.samples {
				measure(m, "a", d)
			}
			if got := state(t, m, "a").Latency; got != tt.want {
				t.Fatalf("latency %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDialConnectTimeIsNotALatencySample(t *testing.T) {
	m, _ := newTestManager(t, LowestLatency, "a")
	m.ObserveDial("a", 300*time.Microsecond, nil)
	if s := state(t, m, "a"); s.HasLatency {
		t.Fatalf("a TCP connect time became the latency estimate %v", s.Latency)
	}
}

func TestFailuresCountInTheScore(t *testing.T) {
	bs := []string{"fast", "steady"}
	m, clk := newTestManager(t, LowestLatency, bs...)
	for range 10 {
		measure(m, "fast", 10*ms)
		measure(m, "steady", 30*ms)
	}
	if got := m.Order("r", bs, IntentLogin); got[0] != "fast" {
		t.Fatalf("Order = %v, want the faster backend first", got)
	}
	// One failed dial among fast's outcomes costs it about 70ms: after
	// three probe rounds confirming that, steady takes over.
	m.ObserveDial("fast", 0, errRefused)
	for range LatencyConfirmations {
		clk.Advance(LatencyRoundSpacing)
		measure(m, "fast", 10*ms)
		measure(m, "steady", 30*ms)
		m.Order("r", bs, IntentLogin)
	}
	got := firsts(m, "r", bs, 10, false)
	if got["steady"] != 10 {
		t.Fatalf("placements %v, want the reliable backend to win while fast's failure counts", got)
	}
}

func TestLowestLatencyNoFlappingBetweenEqualNoisyBackends(t *testing.T) {
	bs := []string{"a", "b"}
	m, clk := newTestManager(t, LowestLatency, bs...)
	noise := rand.New(rand.NewPCG(7, 7))
	sample := func() time.Duration { return 50*ms + time.Duration(noise.IntN(31)-15)*ms }
	measure(m, "a", sample())
	measure(m, "b", sample())
	m.Order("r", bs, IntentLogin)
	first := incumbent(t, m)
	changes := 0
	placed := map[string]int{}
	var held []*Lease
	for i := range 2000 {
		clk.Advance(time.Second)
		measure(m, "a", sample())
		measure(m, "b", sample())
		o := m.Order("r", bs, IntentLogin)
		placed[o[0]]++
		held = append(held, join(m, o[0]))
		if i%10 == 9 { // sessions of about ten seconds
			for _, l := range held[:5] {
				l.Release()
			}
			held = held[5:]
		}
		if inc := incumbent(t, m); inc != first {
			changes++
			first = inc
		}
	}
	if changes != 0 {
		t.Fatalf("incumbent changed %d times between equal backends, want 0", changes)
	}
	if placed["a"] < 900 || placed["b"] < 900 {
		t.Fatalf("placements %v, want equal backends to share about 1000/1000", placed)
	}
}

func TestLatencySweepDropsFadedEstimates(t *testing.T) {
	m, clk := newTestManager(t, LowestLatency, "a", "b")
	measure(m, "a", 10*ms)
	clk.Advance(time.Minute)
	measure(m, "b", 10*ms)
	clk.Advance(LatencyTTL - time.Minute)
	m.mu.Lock()
	m.sweepLocked(clk.Now(), true)
	m.mu.Unlock()
	if _, ok := m.lat.c.Get("a"); ok {
		t.Fatal("a's faded estimate is still cached after a sweep")
	}
	if _, ok := m.lat.c.Get("b"); !ok {
		t.Fatal("b's fresh estimate was swept")
	}
}
