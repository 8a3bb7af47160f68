//go:build linux

package relay

import (
	"errors"
	"testing"
)

// The pipes keep to their share of the open-files limit, so a busy relay never takes
// the descriptors a proxy keeps for accepting: past it a direction copies through a
// buffer instead (TestSplicerWithoutPipesCopiesThroughBuffer covers that path).
func TestPipePoolKeepsToItsShareOfTheFDLimit(t *testing.T) {
	pool := &pipePool{limit: func() uint64 { return 300 }}
	want := 300 / pipesPerFD
	var held []*pipe
	for range want {
		pp, err := pool.get()
		if err != nil {
			t.Fatalf("pipe %d of %d: %v", len(held)+1, want, err)
		}
		held = append(held, pp)
	}
	if _, err := pool.get(); !errors.Is(err, errPipeBudget) {
		t.Fatalf("pipe past the share: %v, want %v", err, errPipeBudget)
	}
	if got := PipeFDs(300); got != 2*want {
		t.Fatalf("PipeFDs(300) = %d, want %d", got, 2*want)
	}
	for _, pp := range held {
		pool.put(pp)
	}
	if _, err := pool.get(); err != nil {
		t.Fatalf("after the pipes came back: %v", err)
	}
	if got := PipeFDs(1 << 20); got != 2*maxPipes {
		t.Fatalf("PipeFDs(1<<20) = %d, want the %d-pipe bound", got, maxPipes)
	}
}
