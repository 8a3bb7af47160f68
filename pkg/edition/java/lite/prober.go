package lite

import (
	"context"
	"fmt"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// defaultProbeTimeout bounds a probe when the caller's context has no deadline.
const defaultProbeTimeout = 5 * time.Second

// prober lets the strategy manager status-ping backends (health checks, latency of
// unmeasured backends, the test before an ejected backend gets players again).
type prober struct{ l *Lite }

var _ strategy.Prober = prober{}

// Probe performs one status exchange with addr, with what reach.Probe writes.
func (p prober) Probe(ctx context.Context, addr string) (strategy.Report, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultProbeTimeout)
		defer cancel()
	}
	deadline, _ := ctx.Deadline()
	c, err := p.l.dial(ctx, addr, addr) // probes reach only backends written without $n
	if err != nil {
		return strategy.Report{}, err
	}
	defer p.l.closeBackend(c)
	out, err := reach.Probe(addr, p.l.snap.Load().proxyProtocolBackends[addr])
	if err != nil {
		return strategy.Report{}, err
	}
	body, rtt, err := exchangeStatus(c, deadline, out)
	if err != nil {
		return strategy.Report{}, fmt.Errorf("probe %s: %w", addr, err)
	}
	rep := reportOf(body, rtt)
	for _, rt := range p.l.snap.Load().wakeByBackend[addr] {
		p.l.wake.observe(rt, body, rep)
	}
	return rep, nil
}
