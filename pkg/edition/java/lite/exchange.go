package lite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/status"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// defaultProbeTimeout bounds a probe when the caller's context has no deadline.
const defaultProbeTimeout = 5 * time.Second

// statusCall is one status exchange with one backend, as the status path, the prober
// and a waking route's readiness check each ask for it.
type statusCall struct {
	addr string
	// tmpl is the configured backend addr was expanded from (addr itself when written
	// without $n): the guard exempts only the host that template writes out.
	tmpl string
	// preamble is what the backend sees first, ending in a Status Request (package reach).
	preamble func() ([]byte, error)
	// dialed, when set, learns how the dial went (a latency sample).
	dialed func(time.Duration, error)
}

// exchange performs x under ctx's deadline: dial, preamble, Status Response. It is the
// one status exchange of the package; rep is what strategies learn from the answer.
func (l *Lite) exchange(ctx context.Context, x statusCall) (body []byte, rep strategy.Report, err error) {
	// The preamble first: when it cannot be made, the backend was never asked.
	out, err := x.preamble()
	if err != nil {
		return nil, strategy.Report{}, err
	}
	deadline, _ := ctx.Deadline()
	start := time.Now()
	c, err := l.dial(ctx, x.addr, x.tmpl)
	if x.dialed != nil {
		x.dialed(time.Since(start), err)
	}
	if err != nil {
		return nil, strategy.Report{}, err
	}
	defer l.closeBackend(c)
	body, rtt, err := exchangeStatus(c, deadline, out)
	if err != nil {
		if l.dials.Looped(c) {
			err = fmt.Errorf("%w: %w", errLooped, err)
		}
		return nil, strategy.Report{}, fmt.Errorf("status from %s: %w", x.addr, err)
	}
	return body, status.StrategyReport(body, rtt), nil
}

// exchangeStatus writes out, then reads the Status Response. rtt is measured from the
// request write to the complete response.
func exchangeStatus(c net.Conn, deadline time.Time, out []byte) ([]byte, time.Duration, error) {
	_ = c.SetDeadline(deadline)
	start := time.Now()
	if _, err := c.Write(out); err != nil {
		return nil, 0, fmt.Errorf("write status request: %w", err)
	}
	buf := make([]byte, 0, 1024)
	for {
		id, payload, _, err := wire.ParseFrame(buf, wire.MaxStatusResponseLen)
		if err == nil {
			if id != wire.IDStatusRequest {
				return nil, 0, fmt.Errorf("unexpected status response id %d", id)
			}
			body, err := wire.ParseStatusResponse(payload)
			return body, time.Since(start), err
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return nil, 0, fmt.Errorf("status response: %w", err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		n, rerr := c.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if rerr != nil && n == 0 {
			return nil, 0, fmt.Errorf("read status response: %w", rerr)
		}
	}
}

// prober lets the strategy manager status-ping backends (health checks, latency of
// unmeasured backends, the test before an ejected backend gets players again).
type prober struct{ l *Lite }

var _ strategy.Prober = prober{}

// Probe performs one status exchange with addr, with what reach.Probe writes. Probes
// reach only backends written without $n.
func (p prober) Probe(ctx context.Context, addr string) (strategy.Report, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultProbeTimeout)
		defer cancel()
	}
	proxyProtocol := p.l.snap.Load().proxyProtocolBackends[addr]
	body, rep, err := p.l.exchange(ctx, statusCall{addr: addr, tmpl: p.l.snap.Load().dialTemplate(nil, nil, addr),
		preamble: func() ([]byte, error) { return reach.Probe(addr, proxyProtocol) }})
	if err != nil {
		return strategy.Report{}, fmt.Errorf("probe %s: %w", addr, err)
	}
	p.l.wake.ObserveBackend(addr, body, rep.Online, rep.HasPlayers)
	return rep, nil
}
