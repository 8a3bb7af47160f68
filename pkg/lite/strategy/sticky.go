package strategy

import (
	"cmp"
	"encoding/hex"
	"net/netip"
	"slices"
	"strings"
)

// StickyBound is sticky's load bound: no backend takes a new player while it
// holds more than this many times the mean of the route's usable backends (the
// c of consistent hashing with bounded loads; HAProxy's hash-balance-factor 125).
const StickyBound = 1.25

// StickySlack is how many players above the mean any backend may hold under
// sticky, whatever StickyBound says (see OrderKey).
const StickySlack = 4

// sticky puts each player's own backend first: rendezvous hashing of the player's
// key over the backends, so that a returning player lands where they were while
// that backend is up, and a backend added or removed moves only its own share of
// players. The backend with the highest score for the key whose load (this
// instance's players and attempts in flight) stays within StickyBound times the
// mean goes first; the rest follow by score, so failover is stable too. Health
// is the manager's: only usable backends are ordered. Without a key (a status
// ping) it orders as least-connections does.
type sticky struct{ ties *leastConn }

func newSticky(e Env) *sticky { return &sticky{ties: newLeastConn(e)} }

func (*sticky) Inputs() Inputs { return 0 }

// Order is the keyless order: fewest players first.
func (s *sticky) Order(cands []Candidate, intent Intent, order []int) {
	s.ties.Order(cands, intent, order)
}

// OrderKey orders cands for the player with key.
func (s *sticky) OrderKey(cands []Candidate, intent Intent, key string, order []int) {
	if key == "" || len(cands) < 2 {
		s.Order(cands, intent, order)
		return
	}
	var buf [p2cStack]uint64
	score := buf[:0]
	var total int64
	for i := range cands {
		score = append(score, rendezvous(key, cands[i].Addr))
		total += cands[i].load()
	}
	identity(order)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	// A backend may take the player while its load stays within the bound of the
	// mean with this player counted, ceil(StickyBound x (total+1) / n), or within
	// StickySlack players of it: with few players the bound alone would move the
	// first ones off their backends, and they would not find them there again.
	n := int64(len(cands))
	limit := (int64(StickyBound*1000)*(total+1) + 1000*n - 1) / (1000 * n)
	limit = max(limit, (total+n)/n+StickySlack)
	for k, p := range order {
		if cands[p].load()+1 <= limit {
			copy(order[1:k+1], order[:k])
			order[0] = p
			return
		}
	}
}

// rendezvous is the score of backend addr for key: FNV-1a over both, finished
// with splitmix64's mixer so that close keys spread. It is the same on every
// replica and every run.
func rendezvous(key, addr string) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range [...]string{key, "\x00", addr} {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// PlayerIdentity is what a login says about its player: the name of its Login
// Start and the UUID the client sent (zero when none).
type PlayerIdentity struct {
	Name string
	UUID [16]byte
}

// Key is who sticky keeps together: the UUID the client sent, else the name
// (case-insensitive, as the server treats it), else, for a client that sent
// neither, its address addr (players behind one NAT then share a backend).
func (p PlayerIdentity) Key(addr netip.Addr) string {
	switch {
	case p.UUID != [16]byte{}:
		return "u:" + hex.EncodeToString(p.UUID[:])
	case p.Name != "":
		return "n:" + strings.ToLower(p.Name)
	case addr.IsValid():
		return "a:" + addr.String()
	}
	return ""
}
