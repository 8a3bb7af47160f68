package lite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	"go.minekube.com/gate/pkg/edition/java/lite/reach"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/logging"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// dial connects to a backend address ("host:port", or "host" resolved like the vanilla
// client: _minecraft._tcp SRV record, else wire.DefaultPort) that tmpl, the configured
// backend, was expanded to. An expansion goes through the guard (package reach); a
// literal backend is dialled as written. ctx carries the deadline. The connection is
// recorded in l.dials until closeBackend.
func (l *Lite) dial(ctx context.Context, addr, tmpl string) (net.Conn, error) {
	var target string
	var err error
	if route.MaxParam(tmpl) > 0 {
		target, err = l.guard.Expanded(ctx, tmpl, addr)
	} else {
		target, err = reach.Resolve(ctx, l.resolver, addr)
	}
	if errors.Is(err, reach.ErrBadPort) {
		// A `$n` port the player's host filled badly, or one left literal: the
		// config is at fault, not the backend. The player chose most of the address,
		// so it is clipped, and the error is the bare sentinel: the log limiter keys
		// on message and error text, and the address would defeat it.
		l.log.Error(reach.ErrBadPort, "backend skipped: unusable address after $n expansion", "backend", logging.Clip(addr))
	}
	if err != nil {
		return nil, err
	}
	c, err := l.dialer.DialContext(ctx, "tcp", target)
	if err != nil {
		if ownLimit(err) {
			return nil, fmt.Errorf("dial %s: %w: %w", addr, errProxyFull, err)
		}
		if target != addr {
			return nil, fmt.Errorf("dial %s (%s): %w", addr, target, err)
		}
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	l.dials.Add(c)
	return c, nil
}

// closeBackend closes a connection dial returned and forgets it as the proxy's own.
func (l *Lite) closeBackend(c net.Conn) {
	l.dials.Remove(c)
	_ = c.Close()
}

// errProxyFull marks a dial that failed for the proxy's own lack of resources. It wraps
// strategy.ErrNotBackend, so the backend's health does not pay for it.
var errProxyFull = fmt.Errorf("proxy out of file descriptors or memory: %w", strategy.ErrNotBackend)

// errLooped marks a backend connection that led back into this proxy and was refused
// there (reach.Dials): the address is the proxy's, not a backend's, so no backend's
// health pays for it.
var errLooped = fmt.Errorf("backend address leads back into this proxy: %w", strategy.ErrNotBackend)

// ownLimit reports dial errors that are the proxy's own limits, not the backend's:
// out of file descriptors (process or system), socket buffers or memory.
func ownLimit(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}
