package strategy

import (
	"math/rand/v2"
	"testing"
	"time"
)

// place orders one login, places it on the first backend with first-byte
// time fb(addr) and keeps the session: held players make "by load" exact.
func place(m *Manager, bs []string, fb func(addr string) time.Duration) string {
	addr := m.Order("r", bs, IntentLogin)[0]
	m.Reserve(addr).Settle(fb(addr), nil)
	return addr
}

// Regression for issue 22, defect 3: the backend that got the logins
// collected their fast first bytes into its one median, and an identical
// backend that only answered probes never got a player again.
func TestLoginFirstBytesDoNotOutrankAnIdenticalProbedBackend(t *testing.T) {
	bs := []string{"a", "b"}
	m, clk := newTestManager(t, LowestLatency, bs...)
	got := map[string]int{}
	for i := range 120 {
		if i%10 == 0 {
			// Status answers take the servers 40ms; a login's first byte 1ms.
			measure(m, "a", 40*ms)
			measure(m, "b", 40*ms)
		}
		got[place(m, bs, func(string) time.Duration { return ms })]++
		clk.Advance(time.Second)
	}
	t.Logf("placements of 120: %v", got)
	if got["a"] < 48 || got["b"] < 48 {
		t.Fatalf("placements %v of 120, want each identical backend to get 40-60%%", got)
	}
	if l := state(t, m, "a").Latency; l != 40*ms {
		t.Fatalf("a's estimate %v, want its status median 40ms (login first bytes are their own kind)", l)
	}
}

// Regression for issue 22, defect 4: a backend whose logins are 30% at
// 400ms kept 44% of the players behind a median of 20ms.
func TestBimodalLoginsPayTheirTail(t *testing.T) {
	bs := []string{"steady", "bimodal"}
	m, clk := newTestManager(t, LowestLatency, bs...)
	rng := rand.New(rand.NewPCG(22, 4))
	fb := func(addr string) time.Duration {
		if addr == "bimodal" && rng.IntN(10) < 3 {
			return 400 * ms
		}
		return 20 * ms
	}
	got := map[string]int{}
	for i := range 600 {
		if i%10 == 0 {
			measure(m, "steady", 20*ms)
			measure(m, "bimodal", 20*ms)
		}
		got[place(m, bs, fb)]++
		clk.Advance(time.Second)
	}
	t.Logf("placements of 600: %v", got)
	if share := got["bimodal"] * 100 / 600; share > 15 {
		t.Fatalf("placements %v: the bimodal backend got %d%%, want at most 15%%", got, share)
	}
	if got["bimodal"] == 0 {
		t.Fatalf("placements %v: the bimodal backend never got a player back after its tail decayed", got)
	}
}

// One slow login is a spike: it moves nothing. The second within the
// window is a pattern and pays at once; then the tail decays, and while
// the strikes are in the window a new slow login pays at once again.
func TestLoginTailNeedsTwoStrikesAndDecays(t *testing.T) {
	m, clk := newTestManager(t, LowestLatency, "a")
	b := m.backendFor("a")
	for range 3 {
		measure(m, "a", 20*ms)
	}
	tail := func() time.Duration {
		var c Candidate
		fillLatency(&c, b, clk.Now())
		return c.Tail
	}
	m.Reserve("a").Settle(400*ms, nil)
	if got := tail(); got != 0 {
		t.Fatalf("tail %v after one slow login, want 0", got)
	}
	m.Reserve("a").Settle(400*ms, nil)
	want := 400*ms - 20*ms - LatencyMargin(20*ms)
	if got := tail(); got != want {
		t.Fatalf("tail %v after two slow logins, want %v", got, want)
	}
	clk.Advance(LatencyTailHalfLife)
	if got := tail(); got != want/2 {
		t.Fatalf("tail %v one half-life later, want %v", got, want/2)
	}
	// Armed: after earning its way back, one more slow login pays in full.
	clk.Advance(4 * LatencyTailHalfLife)
	m.Reserve("a").Settle(400*ms, nil)
	if got := tail(); got != want {
		t.Fatalf("tail %v after a slow login once earned back, want %v at once", got, want)
	}
}

func TestDecayHalvesPerHalfLife(t *testing.T) {
	tests := []struct {
		name   string
		x, age time.Duration
		want   time.Duration
	}{
		{"fresh", 100 * ms, 0, 100 * ms},
		{"half-life", 100 * ms, LatencyTailHalfLife, 50 * ms},
		{"half a half-life is linear", 100 * ms, LatencyTailHalfLife / 2, 75 * ms},
		{"two half-lives", 100 * ms, 2 * LatencyTailHalfLife, 25 * ms},
		{"negative excess", -5 * ms, 0, 0},
		{"ages away", 100 * ms, 100 * LatencyTailHalfLife, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decay(tt.x, tt.age); got != tt.want {
				t.Fatalf("decay(%v, %v) = %v, want %v", tt.x, tt.age, got, tt.want)
			}
		})
	}
}
