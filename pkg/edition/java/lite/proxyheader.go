package lite

import (
	"net"

	"github.com/pires/go-proxyproto"
)

// The PROXY headers the proxy sends to backends. Reading a client's header is
// admission's job (admit.go); these are the outbound side.

// proxyHeader builds the PROXY v2 header sent to a backend: the player's address as the
// source, the address the player connected to as the destination.
func proxyHeader(client, local net.Addr) ([]byte, error) {
	h := proxyproto.HeaderProxyFromAddrs(2, client, local)
	return h.Format()
}

// localProxyHeader is the PROXY v2 LOCAL header for the proxy's own connections (status
// probes): a backend that requires a header accepts it and knows no player is behind it.
func localProxyHeader() ([]byte, error) {
	h := &proxyproto.Header{Version: 2, Command: proxyproto.LOCAL, TransportProtocol: proxyproto.UNSPEC}
	return h.Format()
}
