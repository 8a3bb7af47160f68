package admission

import "testing"

// The budget keeps the reserve (listeners, admin API, probes, pipes, replies, dial
// extras) out of the players' share at every limit, and every connection it allows
// has its two descriptors. pipeFDs is what relay.PipeFDs sets aside on Linux at each
// limit.
func TestFDBudgetKeepsTheReserveAtEveryLimit(t *testing.T) {
	tests := []struct {
		limit          uint64
		pipeFDs        int
		conns, replies int
	}{
		{300, 18, 95, 13},       // issue 20's ulimit -n 300
		{1024, 64, 392, 55},     // a common default soft limit
		{20000, 1024, 9391, 64}, // this machine's hard limit
		{1 << 20, 1024, 523679, 64},
		{64, 4, 1, 1}, // below the reserve: one connection, never none
	}
	for _, tc := range tests {
		b := BudgetFor(tc.limit, 2, tc.pipeFDs)
		if b.Conns != tc.conns || b.FullReplies != tc.replies {
			t.Errorf("limit %d: %d connections, %d reply slots; want %d, %d", tc.limit, b.Conns, b.FullReplies, tc.conns, tc.replies)
		}
		if tc.limit >= 300 {
			if used := uint64(FDsPerConn*b.Conns + b.FullReplies + b.Reserve); used > tc.limit {
				t.Errorf("limit %d: the budget spends %d descriptors", tc.limit, used)
			}
			if free := tc.limit - uint64(FDsPerConn*b.Conns+b.FullReplies); free < AdminConns+fdFixed {
				t.Errorf("limit %d: only %d descriptors left past players and replies", tc.limit, free)
			}
		}
	}
}
