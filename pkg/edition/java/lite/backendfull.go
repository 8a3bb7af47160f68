package lite

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// errTurnedAway: the backend's first answer to a login was a Login Disconnect in a
// text not known to mean "full" (an operator's own "The lobby is at capacity", a ban,
// a whitelist). The player is sent on to the next backend, and gets the last
// backend's text only when every backend turned them away; the backend answered, so
// its health is left alone (strategy.ErrRefused).
var errTurnedAway = fmt.Errorf("backend turned the player away: %w", strategy.ErrRefused)

// maxFullText bounds the Disconnect text looked at: real "full" answers are short, and
// a long first frame is a login going on, not a refusal.
const maxFullText = 4 << 10

// backendRefusal returns the whole Login Disconnect that first, a backend's first
// bytes after a login's preamble, starts with (nil for any other answer), and why it
// failed the attempt: errBackendFull when its text says the server is full, else
// errTurnedAway. The frame aliases first.
func backendRefusal(first []byte) (frame []byte, why error) {
	id, payload, n, err := wire.ParseFrame(first, maxFullText)
	if err != nil || id != wire.IDLoginDisconnect {
		return nil, nil
	}
	// A Disconnect is one JSON text and nothing else. Anything else with id 0 is no
	// Disconnect: a backend echoing the handshake (id 0 too), as test servers do.
	text, used, err := wire.ParseString(payload, maxFullText)
	if err != nil || used != len(payload) || !json.Valid([]byte(text)) {
		return nil, nil
	}
	lower := bytes.ToLower([]byte(text))
	for _, t := range fullTexts {
		if bytes.Contains(lower, t) {
			return first[:n], errBackendFull
		}
	}
	return first[:n], errTurnedAway
}
