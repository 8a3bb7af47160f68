package lite

import (
	"bytes"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// errBackendFull: the backend's first answer to a login was a Login Disconnect saying
// it is full or has too many connections. The backend answered, but it served no one:
// the attempt is settled as a failure the strategies see (like a login with no first
// byte), not as a session, and as load: it holds no more players than it did then.
var errBackendFull = strategy.ErrFull

// fullTexts are the answers that mean "no room", matched case-insensitively inside a
// Login Disconnect's JSON text: vanilla's translation key, the Spigot/Paper and
// BungeeCord messages, Paper's connection throttle, and this proxy's own texts for a
// player it turns away (proxyFullDisconnect, limitDisconnect), for when one sits
// behind another.
var fullTexts = [][]byte{
	[]byte("multiplayer.disconnect.server_full"),
	[]byte("server is full"),
	[]byte("too many connections"),
	[]byte("proxy is full"),
	[]byte("connection throttled"),
}

// maxFullText bounds the Disconnect text looked at: real "full" answers are short, and
// a long first frame is a login going on, not a refusal.
const maxFullText = 4 << 10

// backendFull returns the whole Login Disconnect that first, a backend's first bytes
// after a login's preamble, starts with when it says the server is full; nil for any
// other answer. The frame aliases first.
func backendFull(first []byte) []byte {
	id, payload, n, err := wire.ParseFrame(first, maxFullText)
	if err != nil || id != wire.IDLoginDisconnect {
		return nil
	}
	text, _, err := wire.ParseString(payload, maxFullText)
	if err != nil {
		return nil
	}
	lower := bytes.ToLower([]byte(text))
	for _, t := range fullTexts {
		if bytes.Contains(lower, t) {
			return first[:n]
		}
	}
	return nil
}
