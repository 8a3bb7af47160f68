package lite

import (
	"context"
	"fmt"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// defaultProbeTimeout bounds a probe when the caller's context has no deadline.
const defaultProbeTimeout = 5 * time.Second

// prober lets the strategy manager status-ping backends (health checks, latency of
// unmeasured backends, the test before an ejected backend gets players again).
type prober struct{ l *Lite }

var _ strategy.Prober = prober{}

// Probe performs one status exchange with addr. The handshake names the backend itself
// as the host, with protocol -1 (the value pingers use when they speak no particular
// version), and a PROXY v2 LOCAL header when any route sends PROXY headers to it.
func (p prober) Probe(ctx context.Context, addr string) (strategy.Report, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultProbeTimeout)
		defer cancel()
	}
	deadline, _ := ctx.Deadline()
	c, err := p.l.dial(ctx, addr)
	if err != nil {
		return strategy.Report{}, err
	}
	defer c.Close()
	var pre []byte
	if p.l.snap.Load().proxyProtocolBackends[addr] {
		if pre, err = localProxyHeader(); err != nil {
			return strategy.Report{}, fmt.Errorf("proxy header for %s: %w", addr, err)
		}
	}
	host, port := splitBackend(addr)
	if port == 0 {
		port = int(wire.DefaultPort)
	}
	hs := wire.Handshake{Protocol: -1, Address: host, Port: uint16(port), Intent: wire.IntentStatus}
	body, rtt, err := exchangeStatus(c, deadline, pre, hs)
	if err != nil {
		return strategy.Report{}, fmt.Errorf("probe %s: %w", addr, err)
	}
	return reportOf(body, rtt), nil
}
