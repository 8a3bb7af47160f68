package reach

import (
	"fmt"
	"net"
	"time"

	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// First is what a route's backends see first: a PROXY v2 header if the route sends
// one, then the handshake, rewritten if the route asks for it (modifyVirtualHost,
// tcpShieldRealIP). It is built once per route (NewFirst) and used by both the login
// and the status path, so a backend sees the same thing whichever the player does.
type First struct {
	proxyProtocol bool
	modifyHost    bool
	realIP        bool
}

// NewFirst returns the first bytes of a route with those settings.
func NewFirst(proxyProtocol, modifyVirtualHost, tcpShieldRealIP bool) First {
	return First{proxyProtocol: proxyProtocol, modifyHost: modifyVirtualHost, realIP: tcpShieldRealIP}
}

// Peer names the two ends of a player's connection to the proxy: what a PROXY
// header and a RealIP block report.
type Peer struct {
	Client net.Addr // the player (from a trusted PROXY header, else the socket's peer)
	Local  net.Addr // the proxy address the player connected to
}

// Login is one login's input to First.Login.
type Login struct {
	// Raw is the client's handshake frame and every byte read after it, as read:
	// what the backend gets when the route rewrites nothing.
	Raw []byte
	// Handshake is Raw's handshake parsed; Extra the bytes that followed it.
	Handshake wire.Handshake
	Extra     []byte
	Backend   string // the address dialled ("host:port"), for modifyVirtualHost
	Peer      Peer
	Now       time.Time // the RealIP block's timestamp
}

// Login returns what to write to the backend of a login, in one write. Unrewritten
// and without a header it is in.Raw itself, not a copy.
func (f First) Login(in Login) (net.Buffers, error) {
	payload := in.Raw
	if f.modifyHost || f.realIP {
		payload = wire.AppendHandshake(nil, f.handshake(in.Handshake, in.Backend, in.Peer.Client, in.Now))
		payload = append(payload, in.Extra...)
	}
	if !f.proxyProtocol {
		return net.Buffers{payload}, nil
	}
	hdr, err := proxyHeader(in.Peer)
	if err != nil {
		return nil, fmt.Errorf("proxy header for %s: %w", in.Backend, err)
	}
	return net.Buffers{hdr, payload}, nil
}

// Status returns what to write to backend to ask for its status on behalf of the
// player at p: the header, hs (rewritten as for a login, with the status intent)
// and a Status Request.
func (f First) Status(hs wire.Handshake, backend string, p Peer, now time.Time) ([]byte, error) {
	var out []byte
	if f.proxyProtocol {
		hdr, err := proxyHeader(p)
		if err != nil {
			return nil, fmt.Errorf("proxy header for %s: %w", backend, err)
		}
		out = hdr
	}
	if f.modifyHost || f.realIP {
		hs = f.handshake(hs, backend, p.Client, now)
	}
	hs.Intent = wire.IntentStatus
	out = wire.AppendHandshake(out, hs)
	return wire.AppendStatusRequest(out), nil
}

// Probe returns what the proxy writes to ask backend for its status on its own
// behalf (health checks): a PROXY v2 LOCAL header when some route sends headers to
// it (the backend then requires one, and learns no player is behind it), a
// handshake naming the backend itself with protocol -1 (what pingers that speak no
// particular version send), and a Status Request.
func Probe(backend string, proxyProtocol bool) ([]byte, error) {
	var out []byte
	if proxyProtocol {
		h := &proxyproto.Header{Version: 2, Command: proxyproto.LOCAL, TransportProtocol: proxyproto.UNSPEC}
		hdr, err := h.Format()
		if err != nil {
			return nil, fmt.Errorf("proxy header for %s: %w", backend, err)
		}
		out = hdr
	}
	host, port := SplitBackend(backend)
	if port == 0 {
		port = wire.DefaultPort
	}
	out = wire.AppendHandshake(out, wire.Handshake{Protocol: -1, Address: host, Port: port, Intent: wire.IntentStatus})
	return wire.AppendStatusRequest(out), nil
}

// handshake applies the route's rewrites. modifyVirtualHost replaces only the host
// part (so Forge and TCPShield suffixes survive) with the backend's host; the port
// field stays the client's, as in Gate. tcpShieldRealIP adds TCPShield's RealIP block
// naming the player (see wire.AddRealIP: never twice, and unsigned, so the backend
// must trust this proxy only).
func (f First) handshake(hs wire.Handshake, backend string, client net.Addr, now time.Time) wire.Handshake {
	if f.modifyHost {
		_, suffix := wire.SplitAddress(hs.Address)
		host, _ := SplitBackend(backend)
		hs.Address = host + suffix
	}
	if f.realIP {
		hs.Address = wire.AddRealIP(hs.Address, client.String(), now.Unix())
	}
	return hs
}

// proxyHeader is the PROXY v2 header naming the player as the source and the address
// the player connected to as the destination.
func proxyHeader(p Peer) ([]byte, error) {
	return proxyproto.HeaderProxyFromAddrs(2, p.Client, p.Local).Format()
}
