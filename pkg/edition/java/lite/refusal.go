package lite

import (
	"bytes"
	"fmt"
	"net"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// errBackendFull: the backend's first answer to a login was a Login Disconnect saying
// it is full or has too many connections. The backend answered, but it served no one:
// the attempt is settled as a failure the strategies see (like a login with no first
// byte), not as a session, and as load: it holds no more players than it did then.
var errBackendFull = strategy.ErrFull

// fullTexts are the refusals that mean "no room", matched case-insensitively inside a
// Login Disconnect's JSON text: vanilla's translation key, the Spigot/Paper and
// BungeeCord messages, Paper's connection throttle, and this proxy's own refusals
// (proxyFullDisconnect, refusalDisconnect), for when one sits behind another.
var fullTexts = [][]byte{
	[]byte("multiplayer.disconnect.server_full"),
	[]byte("server is full"),
	[]byte("too many connections"),
	[]byte("proxy is full"),
	[]byte("connection throttled"),
}

// maxRefusalText bounds the Disconnect text looked at: real refusals are short, and a
// long first frame is a login going on, not a refusal.
const maxRefusalText = 4 << 10

// backendFull reports whether first, a backend's first bytes after a login's preamble,
// start with a whole Login Disconnect that says the server is full, and returns that
// frame.
func backendFull(first []byte) ([]byte, bool) {
	id, payload, n, err := wire.ParseFrame(first, maxRefusalText)
	if err != nil || id != wire.IDLoginDisconnect {
		return nil, false
	}
	text, _, err := wire.ParseString(payload, maxRefusalText)
	if err != nil {
		return nil, false
	}
	lower := bytes.ToLower([]byte(text))
	for _, t := range fullTexts {
		if bytes.Contains(lower, t) {
			return first[:n], true
		}
	}
	return nil, false
}

// settleFull ends an attempt whose backend answered "full": it served no one, so the
// lease settles as a failure the strategies see, and the next backend gets the same
// bytes. The caller keeps the refusal for the player in case no backend serves.
func (s *session) settleFull(addr string, backend net.Conn, first firstBytes, lease *strategy.Lease) error {
	err := fmt.Errorf("backend %s: %w", addr, errBackendFull)
	lease.Settle(0, err)
	lease.Release()
	first.release()
	s.l.closeBackend(backend)
	s.l.log.V(1).Info("backend full, trying next", s.logKV("err", err.Error())...)
	return err
}
