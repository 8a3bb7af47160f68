package lite

import "go.minekube.com/gate/pkg/edition/java/lite/wire"

// forwardAddress is the server address a tcpShieldRealIP route's backends get to see,
// before the proxy adds its own RealIP block (reach.First). A block the client put
// in its handshake is removed unless the socket peer is a trusted TCPShield front
// (config.lite.tcpShieldTrustedProxies), which writes and signs the block itself: from
// anyone else it is the player naming their own IP, which would defeat IP bans. Forge
// markers and other NUL fields stay. Routes without tcpShieldRealIP forward the address
// untouched, as before.
func (s *session) forwardAddress(rt *compiledRoute, addr string) string {
	if !rt.cfg.TCPShieldRealIP || s.peerIn(s.snap.cfg.Lite.TCPShieldTrustedProxies) {
		return addr
	}
	return wire.StripRealIP(addr)
}
