package lite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of the dial guard for template-expanded backends.
const (
	// templateResolveTimeout bounds resolving a name built from a player's captures
	// (SRV and address lookups together).
	templateResolveTimeout = 2 * time.Second
	// resolveFailTTL is how long a failed lookup is remembered, so that a player
	// repeating a made-up name costs one query, not one per connection.
	resolveFailTTL = 30 * time.Second
	// maxResolveFailures bounds that memory; when full it starts over.
	maxResolveFailures = 4096
)

// ErrProtectedAddress is returned when a template-expanded backend address points
// where the operator did not name it: loopback, link-local, unspecified, multicast, or
// the proxy's own listen or admin address.
var ErrProtectedAddress = errors.New("template expanded to a protected address")

// HostResolver resolves a backend name to addresses. *net.Resolver implements it; an
// Options.Resolver that implements it is used for this too.
type HostResolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// dialGuard decides where a template-expanded backend may be dialled. A player's
// captures choose such an address, so it is resolved here (bounded, failures
// remembered) and dialled by IP, and protected addresses are refused unless the
// route names the host literally (as in '10.0.0.5:$1'; the proxy's own addresses are
// refused even then).
type dialGuard struct {
	hosts HostResolver
	own   atomic.Pointer[[]netip.AddrPort] // set by Serve once it knows them

	mu     sync.Mutex
	failed map[string]time.Time // addr -> until
}

// setOwn records the proxy's listen and admin addresses.
func (g *dialGuard) setOwn(addrs ...string) {
	var own []netip.AddrPort
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			continue
		}
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			continue
		}
		ip, err := netip.ParseAddr(host)
		if err != nil { // "" or a name such as localhost: any local address
			ip = netip.IPv4Unspecified()
		}
		own = append(own, netip.AddrPortFrom(ip.Unmap(), uint16(p)))
	}
	g.own.Store(&own)
}

// target resolves addr ("host:port", SRV already applied to the expanded backend
// orig) to the one address to dial. literalHost reports that a route names host
// literally. A failed lookup is remembered under orig.
func (g *dialGuard) target(ctx context.Context, orig, addr string, literalHost bool) (string, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("backend %s: %w", addr, err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return "", fmt.Errorf("backend %s: bad port: %w", addr, err)
	}
	ips, err := g.lookup(ctx, host)
	if err != nil {
		g.remember(orig)
		return "", fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		ap := netip.AddrPortFrom(ip.Unmap(), uint16(port))
		if !g.protected(ap, literalHost) {
			return ap.String(), nil
		}
	}
	return "", fmt.Errorf("backend %s: %w", addr, ErrProtectedAddress)
}

func (g *dialGuard) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, templateResolveTimeout)
	defer cancel()
	return g.hosts.LookupNetIP(ctx, "ip", host)
}

// protected reports an address a player's captures must not reach.
func (g *dialGuard) protected(ap netip.AddrPort, literalHost bool) bool {
	ip := ap.Addr()
	var own []netip.AddrPort
	if p := g.own.Load(); p != nil {
		own = *p
	}
	for _, o := range own {
		if o.Port() == ap.Port() && (o.Addr() == ip || (o.Addr().IsUnspecified() && (ip.IsLoopback() || ip.IsUnspecified()))) {
			return true
		}
	}
	if literalHost {
		return false
	}
	return ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast()
}

func (g *dialGuard) failedRecently(addr string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if until, ok := g.failed[addr]; ok && time.Now().Before(until) {
		return fmt.Errorf("resolve %s: failed less than %s ago", addr, resolveFailTTL)
	}
	return nil
}

func (g *dialGuard) remember(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failed == nil || len(g.failed) >= maxResolveFailures {
		g.failed = make(map[string]time.Time)
	}
	g.failed[addr] = time.Now().Add(resolveFailTTL)
}
