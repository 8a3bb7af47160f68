package lite

import "testing"

// The budget keeps the reserve (listeners, admin API, probes, pipes, refusals, dial
// extras) out of the players' share at every limit, and every connection it allows
// has its two descriptors.
func TestFDBudgetKeepsTheReserveAtEveryLimit(t *testing.T) {
	tests := []struct {
		limit         uint64
		conns, refuse int
	}{
		{300, 95, 13},     // issue 20's ulimit -n 300
		{1024, 392, 55},   // a common default soft limit
		{20000, 9391, 64}, // this machine's hard limit
		{1 << 20, 523679, 64},
		{64, 1, 1}, // below the reserve: one connection, never none
	}
	for _, tc := range tests {
		b := budgetFor(tc.limit, 2)
		if b.conns != tc.conns || b.refusals != tc.refuse {
			t.Errorf("limit %d: %d connections, %d refusal slots; want %d, %d", tc.limit, b.conns, b.refusals, tc.conns, tc.refuse)
		}
		if tc.limit >= 300 {
			if used := uint64(fdsPerConn*b.conns + b.refusals + b.reserve); used > tc.limit {
				t.Errorf("limit %d: the budget spends %d descriptors", tc.limit, used)
			}
			if free := tc.limit - uint64(fdsPerConn*b.conns+b.refusals); free < AdminConns+fdFixed {
				t.Errorf("limit %d: only %d descriptors left past players and refusals", tc.limit, free)
			}
		}
	}
}
