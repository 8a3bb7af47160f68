package status

import (
	"bytes"
	"encoding/json"
)

// Fallback is a route's configured offline status.
type Fallback struct {
	MOTD            json.RawMessage // text component JSON (may be nil -> empty text)
	VersionName     string
	VersionProtocol *int32 // nil: echo the client's protocol so the entry looks compatible
	Online, Max     int
	Sample          []SamplePlayer // players.sample; nil renders none
	Favicon         string         // data URI or ""
}

// SamplePlayer is one name in the player list shown on hover.
type SamplePlayer struct {
	Name string `json:"name"`
	ID   string `json:"id"` // a UUID in canonical form
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
