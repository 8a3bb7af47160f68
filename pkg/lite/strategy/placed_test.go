package strategy

import (
	"testing"
	"time"
)

// A report left the backend a round trip before it arrived: a placement that
// settled within that round trip may be missing from its count, so it stays
// charged until the next report; one that settled before the exchange began is
// the backend's to count.
func TestAReportKeepsChargingWhatItCannotHaveCounted(t *testing.T) {
	bs := []string{"a", "b"}
	m, clk := p2cManager(t, P2CConfig{Peers: 1}, bs...)
	report(m, "a", 0, "")
	join(m, "a") // before the next exchange began: counted
	clk.Advance(time.Second)
	join(m, "a") // 10 ms before the report arrives, inside its 20 ms round trip
	clk.Advance(10 * time.Millisecond)
	report(m, "a", 1, "")
	for _, s := range m.Snapshot() {
		if s.Addr == "a" && s.Placed != 1 {
			t.Fatalf("a is charged %d placements after a report that counted one of two, want the one it cannot have counted", s.Placed)
		}
	}
	clk.Advance(time.Second)
	report(m, "a", 2, "")
	for _, s := range m.Snapshot() {
		if s.Addr == "a" && s.Placed != 0 {
			t.Fatalf("a is charged %d placements after a report that began after both, want 0", s.Placed)
		}
	}
}

func TestPlacementsSince(t *testing.T) {
	var p placedLog
	for i := range int64(100) {
		p.add(i)
	}
	for _, tc := range []struct{ from, limit, want int64 }{
		{from: 89, limit: 100, want: 10},  // 90..99
		{from: 89, limit: 4, want: 4},     // only the placements charged count
		{from: 10, limit: 100, want: 100}, // more recent ones than remembered: all of them
		{from: 99, limit: 100, want: 0},
	} {
		if got := p.since(p.n.Load(), tc.from, tc.limit); got != tc.want {
			t.Errorf("since(%d, %d) = %d, want %d", tc.from, tc.limit, got, tc.want)
		}
	}
	p.reported(89)
	if got := p.count(); got != 10 {
		t.Errorf("after a report taking over the placements up to 89, %d charged, want 10", got)
	}
	var empty placedLog
	if got := empty.since(0, 0, 5); got != 0 {
		t.Errorf("since on no placements = %d, want 0", got)
	}
}
