package status

import (
	"bytes"
	"encoding/json"
)

// Fallback is the status response a route answers pings with when every
// backend is down (Gate's `fallback:`). Read-only once built: Render may run
// on many connections at once.
type Fallback struct {
	// MOTD is the description as text component JSON; nil or blank shows an
	// empty text, and text that is not JSON is shown as plain text.
	MOTD json.RawMessage
	// VersionName is `version.name`. Default "" (empty).
	VersionName string
	// VersionProtocol is `version.protocol`; nil echoes the client's
	// protocol so the entry looks compatible.
	VersionProtocol *int32
	// Online and Max are `players.online` and `players.max`. Default 0.
	Online, Max int
	// Sample is `players.sample`, the names shown when hovering over the
	// player count. Default none; an empty list renders none.
	Sample []SamplePlayer
	// Favicon is a PNG data URI; "" shows none. (The config's `favicon` may
	// also name a PNG file, which is read at load.)
	Favicon string
}

// SamplePlayer is one entry of `players.sample`, a name in the player list
// shown on hover.
type SamplePlayer struct {
	// Name is shown as is. Required.
	Name string `json:"name"`
	// ID is the player's UUID in canonical form; clients only show the
	// name. The config's default (unset) is the nil UUID, as in Gate.
	ID string `json:"id"`
}

type statusVersion struct {
	Name     string `json:"name"`
	Protocol int32  `json:"protocol"`
}

type statusPlayers struct {
	Max    int            `json:"max"`
	Online int            `json:"online"`
	Sample []SamplePlayer `json:"sample,omitempty"`
}

// statusResponse is the shape of a Status Response we render; field order follows vanilla.
type statusResponse struct {
	Version     statusVersion   `json:"version"`
	Players     statusPlayers   `json:"players"`
	Description json.RawMessage `json:"description"`
	Favicon     string          `json:"favicon,omitempty"`
}

var emptyText = json.RawMessage(`{"text":""}`)

// Asleep renders f for a route whose server sleeps and has never answered: motd as
// its MOTD, nobody online. A nil Fallback renders the MOTD alone.
func (f *Fallback) Asleep(motd json.RawMessage, protocol int32) []byte {
	var v Fallback
	if f != nil {
		v = *f
	}
	v.MOTD, v.Online = motd, 0
	return v.Render(protocol)
}

// Render returns the Status Response JSON for a client speaking protocol. A MOTD that is not
// valid JSON is shown as plain text rather than breaking the whole response. A nil Fallback
// renders the zero value.
func (f *Fallback) Render(protocol int32) []byte {
	var v Fallback
	if f != nil {
		v = *f
	}
	resp := statusResponse{
		Version:     statusVersion{Name: v.VersionName, Protocol: protocol},
		Players:     statusPlayers{Max: v.Max, Online: v.Online, Sample: v.Sample},
		Description: v.MOTD,
		Favicon:     v.Favicon,
	}
	if v.VersionProtocol != nil {
		resp.Version.Protocol = *v.VersionProtocol
	}
	switch {
	case len(bytes.TrimSpace(v.MOTD)) == 0:
		resp.Description = emptyText
	case !json.Valid(v.MOTD):
		resp.Description = Text(string(v.MOTD))
	}
	// Every field is a plain value or JSON validated above, so encoding cannot fail.
	out, _ := marshalPlain(resp)
	return out
}
