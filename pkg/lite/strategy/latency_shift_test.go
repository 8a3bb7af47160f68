package strategy

import (
	"testing"
	"time"
)

// A backend whose status answers become 3x faster is followed after
// LatencyShiftSamples probes, not after more than half the window; a run of
// slow samples (which noise can make) still waits for the median, and fast
// samples within the margin of the median change nothing.
func TestLatencyWindowFollowsAFasterBackendSoon(t *testing.T) {
	at := time.Unix(0, 0)
	fill := func(w *sampleWindow, d time.Duration, n int) {
		for range n {
			at = at.Add(10 * time.Second)
			w.add(d, at)
			w.restartIfFaster()
		}
	}
	var w sampleWindow
	fill(&w, 90*time.Millisecond, LatencyWindow)
	fill(&w, 30*time.Millisecond, LatencyShiftSamples-1)
	if m := w.median(); m != 90*time.Millisecond {
		t.Fatalf("median %v after %d fast samples, want still 90ms", m, LatencyShiftSamples-1)
	}
	fill(&w, 30*time.Millisecond, 1)
	if m := w.median(); m != 30*time.Millisecond || w.n != LatencyShiftSamples {
		t.Fatalf("median %v (window of %d) after %d fast samples, want 30ms from them alone", m, w.n, LatencyShiftSamples)
	}

	var slow sampleWindow
	fill(&slow, 30*time.Millisecond, LatencyWindow)
	fill(&slow, 200*time.Millisecond, LatencyWindow/2)
	if m := slow.median(); m != 30*time.Millisecond {
		t.Fatalf("median %v after %d slow samples, want still 30ms (a slower backend waits for the median)", m, LatencyWindow/2)
	}

	var near sampleWindow
	fill(&near, 40*time.Millisecond, LatencyWindow)
	fill(&near, 35*time.Millisecond, LatencyShiftSamples)
	if near.n != LatencyWindow+LatencyShiftSamples {
		t.Fatal("samples within the margin restarted the window")
	}
}
