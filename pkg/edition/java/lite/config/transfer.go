package config

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/hostport"
)

// Transfer is a route's `transfer: host[:port]`: the address its 1.20.5+ players
// are sent to with the protocol's Transfer packet, the proxy logging them in
// itself and relaying nothing (docs/lite/transfer.md). Older clients get a Login
// Disconnect naming the address; pings are answered as the route's `status`
// says. Nil: not a redirect route.
type Transfer struct {
	Host string // a DNS name or an IP address, without brackets
	Port uint16 // wire.DefaultPort (25565) when the address names none
}

// String is the address as a player types it.
func (t Transfer) String() string {
	if t.Port == wire.DefaultPort {
		return bracketed(t.Host)
	}
	return net.JoinHostPort(t.Host, strconv.Itoa(int(t.Port)))
}

func bracketed(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

// errTransferNotGranted is why a discovered route may not set `transfer`: a label
// would send every player of its hosts to an address its owner does not control
// through the proxy's name, which is more than the owner may do to itself.
var errTransferNotGranted = errors.New("a label or annotation may not send players to another address; only the config file sets transfer")

// TransferHold is a wake route's long hold (`transferHoldFor`, `transferKeepIntent`):
// a 1.20.5+ player not joined within holdFor is logged in by the proxy, parked in
// the configuration state with keep-alives, and transferred back to the address they
// used once the server answers (docs/lite/transfer.md).
type TransferHold struct {
	// For is how long a player may stay parked, counted from their login. Default 0:
	// no long hold (the player gets the starting Disconnect after holdFor).
	For time.Duration
	// KeepIntent replays a returning login (handshake intent 3) to the backend as
	// it came; default false: as an ordinary login (intent 2), which a backend with
	// accepts-transfers=false (the vanilla default) requires.
	KeepIntent bool
}

// MaxTransferHold caps transferHoldFor: a parked player costs a socket and a
// goroutine, and nobody waits longer than this on a loading screen.
const MaxTransferHold = time.Hour

// transferHandler is a route's `transfer`, `transferHoldFor` and `transferKeepIntent` keys.
func (d *decoder) transferHandler(r *Route) map[string]handler {
	return map[string]handler{
		"transfer": func(f entry) { r.Transfer = d.transfer(f) },
		"transferHoldFor": func(f entry) {
			if d.positive(f, &r.TransferHold.For) && r.TransferHold.For > MaxTransferHold {
				d.invalid(f, "%s is more than %s", r.TransferHold.For, MaxTransferHold)
			}
		},
		"transferKeepIntent": func(f entry) { d.boolean(f, &r.TransferHold.KeepIntent) },
	}
}

// transfer decodes `transfer`.
func (d *decoder) transfer(e entry) *Transfer {
	n, ok := d.scalar(e, "an address host[:port]")
	if !ok {
		return nil
	}
	if d.scope.discovered {
		d.errorf(n.Line, e.path, ErrNotGranted, "%v", errTransferNotGranted)
		return nil
	}
	t, err := parseTransfer(n.Value)
	if err != nil {
		d.invalid(e, "invalid transfer address %q: %v", truncate(n.Value), err)
		return nil
	}
	return t
}

func parseTransfer(addr string) (*Transfer, error) {
	host, port, err := splitOptionalPort(addr)
	if err != nil {
		return nil, err
	}
	if err := validHost(host, strings.HasPrefix(addr, "[")); err != nil {
		return nil, err
	}
	t := &Transfer{Host: host, Port: wire.DefaultPort}
	if port != "" {
		if t.Port, err = hostport.ParsePort(port); err != nil {
			return nil, err
		}
	}
	return t, nil
}
