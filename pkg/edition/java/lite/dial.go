package lite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/logging"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// dial connects to a backend address ("host:port", or "host" resolved like the vanilla
// client: _minecraft._tcp SRV record, else wire.DefaultPort). ctx carries the deadline.
func (l *Lite) dial(ctx context.Context, addr string) (net.Conn, error) {
	snap := l.snap.Load()
	if !snap.literal[addr] {
		return l.dialExpanded(ctx, snap, addr)
	}
	target, err := l.resolve(ctx, addr)
	if errors.Is(err, errBackendPort) {
		// A `$n` port the player's host filled badly, or one left literal: the
		// config is at fault, not the backend.
		l.logUnusable(addr)
	}
	if err != nil {
		return nil, err
	}
	c, err := l.dialer.DialContext(ctx, "tcp", target)
	if err != nil {
		if ownLimit(err) {
			return nil, fmt.Errorf("dial %s: %w: %w", addr, errProxyFull, err)
		}
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return c, nil
}

// dialExpanded dials an address a template expanded from a player's captures: every
// lookup for it within templateResolveTimeout, a failed one remembered for
// resolveFailTTL, and only to an address the dial guard allows (dialguard.go).
func (l *Lite) dialExpanded(ctx context.Context, snap *snapshot, addr string) (net.Conn, error) {
	if err := l.guard.failedRecently(addr); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, templateResolveTimeout)
	defer cancel()
	target, err := l.resolve(rctx, addr)
	if errors.Is(err, errBackendPort) {
		l.logUnusable(addr)
	}
	if err != nil {
		l.guard.remember(addr)
		return nil, err
	}
	host, _ := splitBackend(target)
	if target, err = l.guard.target(rctx, addr, target, snap.literalHosts[host]); err != nil {
		return nil, err
	}
	c, err := l.dialer.DialContext(ctx, "tcp", target)
	if err != nil {
		return nil, fmt.Errorf("dial %s (%s): %w", addr, target, err)
	}
	return c, nil
}

// errProxyFull marks a dial that failed for the proxy's own lack of resources. It wraps
// strategy.ErrNotBackend, so the backend's health does not pay for it.
var errProxyFull = fmt.Errorf("proxy out of file descriptors or memory: %w", strategy.ErrNotBackend)

// ownLimit reports dial errors that are the proxy's own limits, not the backend's:
// out of file descriptors (process or system), socket buffers or memory.
func ownLimit(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}

// logUnusable reports a backend address that expanded to no usable port. The player
// chose most of it, so it is clipped, and the error logged is the bare sentinel: the
// log limiter keys on the call site, message and error text, and an error carrying the
// address would make every player's login a new error that is never rate-limited.
func (l *Lite) logUnusable(addr string) {
	l.log.Error(errBackendPort, "backend skipped: unusable address after $n expansion", "backend", logging.Clip(addr))
}

// errBackendPort is why a backend address whose port came from `$n`
// expansion (checked here, not at load, as in Gate) is not dialled.
var errBackendPort = errors.New("port is not a number in 1-65535")

func (l *Lite) resolve(ctx context.Context, addr string) (string, error) {
	if _, port, err := net.SplitHostPort(addr); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port[0] == '+' {
			return "", fmt.Errorf("backend %s: %w (got %s)", logging.Clip(addr), errBackendPort, logging.Clip(strconv.Quote(port)))
		}
		return addr, nil
	}
	host := strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	if _, err := netip.ParseAddr(host); err == nil {
		return net.JoinHostPort(host, defaultPort()), nil
	}
	_, srvs, err := l.resolver.LookupSRV(ctx, "minecraft", "tcp", host)
	if err == nil && len(srvs) > 0 {
		target := strings.TrimSuffix(srvs[0].Target, ".")
		return net.JoinHostPort(target, strconv.Itoa(int(srvs[0].Port))), nil
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("resolve %s: %w", addr, ctx.Err())
	}
	// No SRV record (the common case): the vanilla client falls back to the default port.
	return net.JoinHostPort(host, defaultPort()), nil
}

// defaultPort is wire.DefaultPort as the port part of a "host:port" address.
func defaultPort() string { return strconv.Itoa(int(wire.DefaultPort)) }

// rewriteHandshake applies the route's handshake rewrites. modifyVirtualHost replaces
// only the host part (so Forge and TCPShield suffixes survive) with the backend's host;
// the port field stays the client's, as in Gate. tcpShieldRealIP adds TCPShield's RealIP block naming the player (see
// wire.AddRealIP: never twice, and unsigned, so the backend must trust this proxy only).
func rewriteHandshake(hs wire.Handshake, rt *compiledRoute, backend string, client net.Addr, now time.Time) wire.Handshake {
	if rt.cfg.ModifyVirtualHost {
		_, suffix := wire.SplitAddress(hs.Address)
		host, _ := splitBackend(backend)
		hs.Address = host + suffix
	}
	if rt.cfg.TCPShieldRealIP {
		hs.Address = wire.AddRealIP(hs.Address, client.String(), now.Unix())
	}
	return hs
}

// splitBackend returns a backend address's host and port (0 when it has none).
func splitBackend(addr string) (string, int) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]"), 0
	}
	p, _ := strconv.Atoi(port)
	return host, p
}
