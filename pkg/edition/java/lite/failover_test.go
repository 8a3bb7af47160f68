package lite_test

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// Issue 20, item 5: with many backends that accept and never answer, a login's try
// order (fixed before it learnt anything) walked players through hung backend after
// hung backend until the read timeout. After a failed attempt the rest of the order
// now puts a backend that answered recently first, so a player pays for at most one
// hung backend: all 20 players are in within 2 x firstResponseTimeout.
func TestHungBackendsDoNotWalkPlayersPastTheirDeadline(t *testing.T) {
	const (
		hung    = 20
		players = 20
		frt     = 500 * time.Millisecond
	)
	var addrs []string
	for i := range hung {
		mode := mctest.FaultHang
		if i%2 == 1 {
			mode = mctest.FaultStall
		}
		addrs = append(addrs, newFaultyBackend(t, mode).addr)
	}
	healthy := newBackend(t, statusJSON("healthy", 0, 100))
	addrs = append(addrs, healthy.addr)
	p := startProxy(t, oneRoute("hung.example.com", addrs...).with("strategy: "+string(strategy.Random), "cachePingTTL: -1").
		withTop("connectionTimeout: 1s", "readTimeout: 20s").withLite(fmt.Sprintf("firstResponseTimeout: %v", frt)).String(),
		proxyOpts{seed: 20})

	// The network has been serving: one player got in (through however many hung
	// backends its order held) before the others arrive.
	start := time.Now()
	first := dialProxy(t, p.addr).Client
	// Its walk may take up to one firstResponseTimeout per hung backend, past the
	// client's usual deadline; the read timeout still bounds it.
	_ = first.SetDeadline(time.Now().Add(30 * time.Second))
	if err := joinEcho(first, "hung.example.com", "first"); err != nil {
		t.Fatalf("first player: %v", err)
	}
	t.Logf("first player served after %v", time.Since(start))

	conns := make([]*mctest.Client, players)
	for i := range conns {
		conns[i] = dialProxy(t, p.addr).Client
	}
	took, errs := joinAll(conns, "hung.example.com")
	served, slowest := 0, time.Duration(0)
	for i := range conns {
		if errs[i] == nil {
			served++
			slowest = max(slowest, took[i])
		}
	}
	t.Logf("%d of %d players served, slowest join %v (firstResponseTimeout %v)", served, players, slowest, frt)
	for i := range conns {
		if errs[i] != nil {
			t.Errorf("player %d: %v after %v", i, errs[i], took[i])
		} else if took[i] > 2*frt {
			t.Errorf("player %d joined after %v, want within 2 x firstResponseTimeout (%v)", i, took[i], 2*frt)
		}
	}
}

// joinAll logs every client in to host at once, as player p<i>, and returns how long
// each one's join took and its error.
func joinAll(conns []*mctest.Client, host string) ([]time.Duration, []error) {
	var wg sync.WaitGroup
	took := make([]time.Duration, len(conns))
	errs := make([]error, len(conns))
	for i, c := range conns {
		wg.Go(func() {
			start := time.Now()
			errs[i] = joinEcho(c, host, fmt.Sprintf("p%d", i))
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	return took, errs
}

// joinEcho sends a login preamble for host and waits for the fake backend's echo of
// it, the proof that a backend took the player; anything else is an error.
func joinEcho(c *mctest.Client, host, name string) error {
	return echoed(c, mctest.LoginPreamble(765, host, name))
}

// echoed sends a login (and whatever follows it) and waits for the fake backend's
// echo of exactly those bytes.
func echoed(c *mctest.Client, sent []byte) error {
	if _, err := c.Write(sent); err != nil {
		return fmt.Errorf("send login: %w", err)
	}
	got := make([]byte, len(sent))
	if _, err := io.ReadFull(c.R, got); err != nil {
		return fmt.Errorf("read echo: %w", err)
	}
	if !bytes.Equal(got, sent) {
		return fmt.Errorf("not served: got %q", got)
	}
	return nil
}
