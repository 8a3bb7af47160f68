package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/lite/events"
)

// Paths of the event stream and the live sessions.
const (
	PathEvents   = "/api/v1/events"
	PathSessions = "/api/v1/sessions"
)

// StreamSlots is how many event streams may be open at once: a slot budget of
// their own, so that streams (which last) never take the slots of the other
// endpoints or the probes' (see limitListener.markBusy).
const StreamSlots = 2

// streamQueue is each stream's queue in events: a client that falls this far
// behind misses events (the gap shows in the IDs; it may reconnect with
// Last-Event-ID).
const streamQueue = 256

// heartbeat keeps an idle stream's proxies and clients from timing it out; a write
// must finish within writeWithin or the stream ends.
const (
	heartbeat   = 15 * time.Second
	writeWithin = 10 * time.Second
)

// streamEvents serves Server-Sent Events: each event as `id:`, `event:` (its type)
// and `data:` (its JSON). A Last-Event-ID header (or ?after=) resumes after that
// ID from the events the proxy still keeps; a comment says how many it no longer
// had. ?types=joined,ended limits the stream to those types.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) {
	mask, err := events.ParseTypes(splitList(r.URL.Query().Get("types")))
	if err != nil {
		writeText(w, http.StatusBadRequest, err.Error())
		return
	}
	after, _ := strconv.ParseUint(firstOf(r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")), 10, 64)
	rc := http.NewResponseController(w)
	// The server's read deadline would end the stream (and its context) after ReadTimeout.
	_ = rc.SetReadDeadline(time.Time{})
	sub, missed := s.o.Events.Subscribe(mask, streamQueue, after)
	defer sub.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if missed > 0 {
		fmt.Fprintf(w, ": %d events since %d are no longer kept\n\n", missed, after)
	}
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		_ = rc.SetWriteDeadline(time.Now().Add(writeWithin))
		if rc.Flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		case <-beat.C:
			_, _ = fmt.Fprint(w, ": ping\n\n")
		case e, ok := <-sub.C():
			if !ok || writeEvent(w, &e) != nil {
				return
			}
		}
	}
}

func writeEvent(w http.ResponseWriter, e *events.Event) error {
	data, err := json.Marshal(e.View())
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.ID, e.Type, data)
	return err
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Session is one live player session in /api/v1/sessions.
type Session struct {
	Conn    uint64             `json:"conn"`
	Route   string             `json:"route"`
	VHost   string             `json:"vhost"`
	Backend string             `json:"backend"`
	Client  string             `json:"client"`
	Player  *events.PlayerJSON `json:"player,omitempty"`
	Since   time.Time          `json:"since"`
}

func sessionsView(in []events.Session) []Session {
	out := make([]Session, 0, len(in))
	for _, s := range in {
		v := Session{Conn: s.Conn, Route: s.Route, VHost: s.VHost, Backend: s.Backend, Since: s.Since.UTC()}
		if s.Client != nil {
			v.Client = s.Client.String()
		}
		if s.Player != nil {
			v.Player = &events.PlayerJSON{Name: s.Player.Name, UUID: s.Player.UUID}
		}
		out = append(out, v)
	}
	return out
}
