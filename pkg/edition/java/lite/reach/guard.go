package reach

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/hostport"
)

// Bounds of the guard for template-expanded backends.
const (
	// TemplateResolveTimeout bounds resolving a name built from a player's captures
	// (SRV and address lookups together).
	TemplateResolveTimeout = 2 * time.Second
	// ResolveFailTTL is how long a failed lookup is remembered, so that a player
	// repeating a made-up name costs one query, not one per connection.
	ResolveFailTTL = 30 * time.Second
	// maxResolveFailures bounds that memory; when full it starts over.
	maxResolveFailures = 4096
)

// ErrProtectedAddress is returned when a template-expanded backend address points
// where the operator did not name it: loopback, link-local, unspecified, multicast, or
// one of the proxy's own listening addresses (see the package doc).
var ErrProtectedAddress = errors.New("template expanded to a protected address")

// HostResolver resolves a backend name to addresses (*net.Resolver implements it).
type HostResolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Resolver is what the guard resolves template-expanded addresses with.
type Resolver interface {
	SRVResolver
	HostResolver
}

// Guard decides where a template-expanded backend may be dialled (see the package
// doc). The zero value is not usable; use NewGuard.
type Guard struct {
	dns   Resolver
	own   atomic.Pointer[[]netip.AddrPort] // the proxy's listening addresses
	local *LocalAddrs

	mu     sync.Mutex
	failed map[string]time.Time // expanded address -> until
}

// NewGuard returns a guard that resolves with dns and knows the host's addresses
// from local (nil: the host's interfaces, re-read at most every LocalAddrsTTL).
func NewGuard(dns Resolver, local *LocalAddrs) *Guard {
	if local == nil {
		local = NewLocalAddrs(nil)
	}
	return &Guard{dns: dns, local: local}
}

// SetOwn records the proxy's listening addresses ("host:port"; a host that is empty
// or a name, such as localhost, stands for every local address). Unparsable ones
// are skipped.
func (g *Guard) SetOwn(addrs ...string) {
	var own []netip.AddrPort
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			continue
		}
		p, err := hostport.ParseListenPort(port)
		if err != nil {
			continue
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			ip = netip.IPv4Unspecified()
		}
		own = append(own, netip.AddrPortFrom(ip.Unmap(), p))
	}
	g.own.Store(&own)
}

// Expanded resolves addr, expanded from the backend template tmpl, to the one
// address to dial: SRV applied, then the host's addresses in turn until one is not
// protected (both lookups together within TemplateResolveTimeout). A failed lookup
// is remembered under addr for ResolveFailTTL.
func (g *Guard) Expanded(ctx context.Context, tmpl, addr string) (string, error) {
	if err := g.failedRecently(addr); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, TemplateResolveTimeout)
	defer cancel()
	target, err := Resolve(ctx, g.dns, addr)
	if err != nil {
		g.remember(addr)
		return "", err
	}
	host, portStr, err := net.SplitHostPort(target)
	if err != nil {
		return "", fmt.Errorf("backend %s: %w", target, err)
	}
	port, err := hostport.ParsePort(portStr)
	if err != nil {
		return "", fmt.Errorf("backend %s: bad port: %w", target, err)
	}
	ips, err := g.lookup(ctx, host)
	if err != nil {
		g.remember(addr)
		return "", fmt.Errorf("resolve %s: %w", host, err)
	}
	named := NamedHost(tmpl) == host
	for _, ip := range ips {
		ap := netip.AddrPortFrom(ip.Unmap(), port)
		if !g.Protected(ap, named) {
			return ap.String(), nil
		}
	}
	return "", fmt.Errorf("backend %s: %w", target, ErrProtectedAddress)
}

// NamedHost returns the host a backend template writes out literally ("10.0.0.5"
// for '10.0.0.5:$1'), or "" when its host has a `$n`: only that template's
// expansions to that host are exempt from the guard's address classes.
func NamedHost(tmpl string) string {
	host, _ := SplitBackend(tmpl)
	if route.MaxParam(host) > 0 {
		return ""
	}
	return host
}

func (g *Guard) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	return g.dns.LookupNetIP(ctx, "ip", host)
}

// Protected reports an address a player's captures must not reach: the proxy's own
// listening addresses, and unless named, loopback, the host's interface addresses,
// unspecified, link-local and multicast ones. named reports
// that the template writes this host out: the address classes then do not apply,
// the proxy's own listening addresses still do.
func (g *Guard) Protected(ap netip.AddrPort, named bool) bool {
	ip := ap.Addr().Unmap()
	if g.ownPort(ap.Port(), ip) {
		return true
	}
	if named {
		return false
	}
	// Any address of the host's own interfaces gets loopback's treatment: a service
	// bound on 0.0.0.0 (RCON, a database, a Docker API, a sidecar) answers there too.
	return ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		g.local.Has(ip)
}

// ownPort reports whether ip:port is one of the proxy's listening addresses.
func (g *Guard) ownPort(port uint16, ip netip.Addr) bool {
	p := g.own.Load()
	if p == nil {
		return false
	}
	for _, o := range *p {
		if o.Port() != port {
			continue
		}
		if o.Addr() == ip {
			return true
		}
		if o.Addr().IsUnspecified() && (ip.IsLoopback() || ip.IsUnspecified() || g.local.Has(ip)) {
			return true
		}
	}
	return false
}

func (g *Guard) failedRecently(addr string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if until, ok := g.failed[addr]; ok && time.Now().Before(until) {
		return fmt.Errorf("resolve %s: failed less than %s ago", addr, ResolveFailTTL)
	}
	return nil
}

func (g *Guard) remember(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failed == nil || len(g.failed) >= maxResolveFailures {
		g.failed = make(map[string]time.Time)
	}
	g.failed[addr] = time.Now().Add(ResolveFailTTL)
}
