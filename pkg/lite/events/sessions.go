package events

import (
	"cmp"
	"net"
	"slices"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/lite/players"
)

// Session is one live player session, as the admin API shows it.
type Session struct {
	Conn    uint64
	Route   string
	VHost   string
	Backend string
	Client  net.Addr
	Player  *players.Player
	Since   time.Time
}

// Sessions is the table of live sessions: a joined event adds one, its ended
// event removes it. It is fed directly (never through a queue that may drop), so
// it cannot lose an end and keep a session that is gone.
type Sessions struct {
	mu   sync.Mutex
	live map[uint64]Session
}

// NewSessions returns an empty table.
func NewSessions() *Sessions { return &Sessions{live: make(map[uint64]Session)} }

// Observe adds a joined session and removes an ended one; other types are ignored.
func (s *Sessions) Observe(e *Event) {
	switch e.Type {
	case Joined:
		s.mu.Lock()
		s.live[e.Conn] = Session{Conn: e.Conn, Route: e.Route, VHost: e.VHost, Backend: e.Backend,
			Client: e.Client, Player: e.Player, Since: e.Time}
		s.mu.Unlock()
	case Ended:
		s.mu.Lock()
		delete(s.live, e.Conn)
		s.mu.Unlock()
	}
}

// List returns the live sessions, oldest first.
func (s *Sessions) List() []Session {
	s.mu.Lock()
	out := make([]Session, 0, len(s.live))
	for _, v := range s.live {
		out = append(out, v)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Session) int { return cmp.Compare(a.Conn, b.Conn) })
	return out
}
