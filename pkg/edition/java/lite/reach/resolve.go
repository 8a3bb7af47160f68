package reach

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/hostport"
	"go.minekube.com/gate/pkg/lite/logging"
)

// SRVResolver looks up _minecraft._tcp SRV records (*net.Resolver implements it).
type SRVResolver interface {
	LookupSRV(ctx context.Context, service, proto, name string) (string, []*net.SRV, error)
}

// ErrBadPort is why a backend address whose port came from `$n` expansion (checked
// when dialling, not at load, as in Gate) is not dialled.
var ErrBadPort = errors.New("port is not a number in 1-65535")

// Resolve turns a backend address into "host:port" as the vanilla client would: a
// given port is checked and kept; a bare IP gets wire.DefaultPort; a bare name gets
// its _minecraft._tcp SRV record's target, else wire.DefaultPort. ctx bounds the
// lookup. The host of the result may still be a name.
func Resolve(ctx context.Context, r SRVResolver, addr string) (string, error) {
	if _, port, err := net.SplitHostPort(addr); err == nil {
		if _, err := hostport.ParsePort(port); err != nil {
			return "", fmt.Errorf("backend %s: %w (got %s)", logging.Clip(addr), ErrBadPort, logging.Clip(strconv.Quote(port)))
		}
		return addr, nil
	}
	host := strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	if _, err := netip.ParseAddr(host); err == nil {
		return net.JoinHostPort(host, DefaultPort()), nil
	}
	_, srvs, err := r.LookupSRV(ctx, "minecraft", "tcp", host)
	if err == nil && len(srvs) > 0 {
		target := strings.TrimSuffix(srvs[0].Target, ".")
		return net.JoinHostPort(target, strconv.Itoa(int(srvs[0].Port))), nil
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("resolve %s: %w", addr, ctx.Err())
	}
	// No SRV record (the common case): the vanilla client falls back to the default port.
	return net.JoinHostPort(host, DefaultPort()), nil
}

// DefaultPort is wire.DefaultPort as the port part of a "host:port" address.
func DefaultPort() string { return strconv.Itoa(int(wire.DefaultPort)) }

// SplitBackend returns a backend address's host and port (0 when it has none,
// or none that hostport accepts).
func SplitBackend(addr string) (string, uint16) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]"), 0
	}
	p, _ := hostport.ParsePort(port)
	return host, p
}
