package lite_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// Issue 32, item 7: six logins at once onto three idle backends under
// least-connections land 2/2/2, every time: each pick reserves, so the next one
// sees it. On a quiet machine 4 of 6 runs were not (1/4/1 seen). Rounds: 20
// (GATETEST_LONG=1: 100).
func TestLeastConnectionsSpreadsABurstOfSixEvenly(t *testing.T) {
	rounds := 20
	if os.Getenv("GATETEST_LONG") != "" {
		rounds = 100
	}
	uneven := 0
	for r := range rounds {
		bs := []*backend{newBackend(t, ""), newBackend(t, ""), newBackend(t, "")}
		p := startProxy(t, oneRoute("*", bs[0].addr, bs[1].addr, bs[2].addr).
			with("strategy: least-connections").quotasOff().String(), proxyOpts{seed: uint64(r + 1)})
		conns := make([]*mctest.Client, 6)
		for i := range conns {
			conns[i] = dialProxy(t, p.addr).Client
			_ = conns[i].SetDeadline(time.Now().Add(10 * time.Second))
		}
		if _, errs := joinAll(conns, "burst.example.com"); errorsIn(errs) > 0 {
			t.Fatalf("round %d: %d of 6 logins failed: %v", r, errorsIn(errs), errs)
		}
		got := fmt.Sprint(activeOn(p, bs[0].addr), "/", activeOn(p, bs[1].addr), "/", activeOn(p, bs[2].addr))
		if got != "2/2/2" {
			uneven++
			t.Errorf("round %d: the burst landed %s, want 2/2/2", r, got)
		}
		for _, c := range conns {
			_ = c.Close()
		}
		_ = p.stop()
	}
	t.Logf("%d of %d rounds uneven", uneven, rounds)
}

func errorsIn(errs []error) int {
	n := 0
	for _, err := range errs {
		if err != nil {
			n++
		}
	}
	return n
}
