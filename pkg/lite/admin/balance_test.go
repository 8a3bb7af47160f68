package admin

import (
	"bytes"
	"testing"
	"time"
)

func TestWriteBalance(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	score := 32.5
	routes := []Route{{Key: "play", Strategy: "lowest-latency", ScoreUnit: "ms",
		Decision: &Decision{Best: "a", Challenger: "b", Confirmations: 1, Needed: 3, LastSwitch: &at,
			Hold: "candidate-unstable", Changes: map[string]uint64{"confirmed": 2}}}}
	bs := []Backend{
		{Route: "play", Backend: "a", State: "healthy", Eligible: true, Score: &score, FailuresPermille: 31, PenaltyMs: 31,
			Balance: &Balance{Load: 0.5, LoadSource: "report", Capacity: 200, CapacitySource: "reported", Replicas: 4, RampPercent: 40},
			Why:     "eligible: healthy"},
		{Route: "other", Backend: "x", State: "healthy"},
	}
	var buf bytes.Buffer
	if err := WriteBalance(&buf, routes, bs); err != nil {
		t.Fatal(err)
	}
	want := `route play: lowest-latency, score in ms
best a, challenger b (1 of 3 confirmations), last switch 2024-05-01T12:00:00Z, not switching: candidate-unstable, changes: confirmed 2, incumbent-gone 0
  BACKEND  STATE    ELIGIBLE  SCORE  LATENCY  FAILURES      LOAD  SOURCE  CAPACITY      REPLICAS  RAMP  WHY
  a        healthy  yes       32.5   -        3.1% (+31ms)  0.50  report  200 reported  4         40%   eligible: healthy
`
	if got := buf.String(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
