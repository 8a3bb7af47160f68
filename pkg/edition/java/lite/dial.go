package lite

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// defaultPort is the vanilla client's port when neither the address nor SRV gives one.
const defaultPort = "25565"

// dial connects to a backend address ("host:port", or "host" resolved like the vanilla
// client: _minecraft._tcp SRV record, else port 25565). ctx carries the deadline.
func (l *Lite) dial(ctx context.Context, addr string) (net.Conn, error) {
	target, err := l.resolve(ctx, addr)
	if err != nil {
		return nil, err
	}
	c, err := l.dialer.DialContext(ctx, "tcp", target)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return c, nil
}

func (l *Lite) resolve(ctx context.Context, addr string) (string, error) {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr, nil
	}
	host := strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	if _, err := netip.ParseAddr(host); err == nil {
		return net.JoinHostPort(host, defaultPort), nil
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
	return net.JoinHostPort(host, defaultPort), nil
}

// rewriteHandshake applies the route's handshake rewrites. modifyVirtualHost replaces
// only the host part (so Forge and TCPShield suffixes survive) with the backend's host
// and port. tcpShieldRealIP appends a TCPShield-style "///ip:port///unixtime" block
// after the host so a TCPShield-aware backend sees the player's address; an address that
// already carries such a block passes through untouched (never double-appended). The
// proxy cannot sign the block (TCPShield's key is theirs), so the backend plugin must be
// set to accept unsigned blocks from this proxy only (e.g. by firewalling the backend).
func rewriteHandshake(hs wire.Handshake, rt *compiledRoute, backend string, client net.Addr, now time.Time) wire.Handshake {
	host, suffix := wire.SplitAddress(hs.Address)
	if rt.cfg.ModifyVirtualHost {
		bhost, bport := splitBackend(backend)
		host = bhost
		if bport > 0 {
			hs.Port = uint16(bport)
		}
	}
	if rt.cfg.TCPShieldRealIP && !strings.Contains(suffix, "///") {
		host += "///" + client.String() + "///" + strconv.FormatInt(now.Unix(), 10)
	}
	hs.Address = host + suffix
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
