package reach

import (
	"hash/maphash"
	"net/netip"
	"sync"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// maxLoginFrame bounds the frame after the handshake that a login is known by: a
// Login Start is a name and a UUID, with signature data on 1.19-1.19.2.
const maxLoginFrame = 4 << 10

// Logins is the set of logins the proxy is sending to a backend right now and has no
// answer for yet, known by the bytes the backend sees after any PROXY header: the
// handshake and the first frame after it (a real client's Login Start, with its name
// and, on newer versions, its UUID). A connection that arrives carrying the same
// bytes is one of them come back: a forwarder that re-dials from an address of its
// own (a userland proxy, an SNAT load balancer, a hairpin), or another replica whose
// routes list this one. Addresses cannot tell these apart; the bytes can. It is safe
// for concurrent use.
//
// A login whose player has not sent that frame yet is not recorded: players' bare
// handshakes to one host are alike, so they would refuse each other. And the same
// bytes from the player's own address are that player again (a client that joins
// twice at once, bots that share a name), never a loop: a login comes back from the
// forwarder's or the replica's address.
type Logins struct {
	seed   maphash.Seed
	mu     sync.Mutex
	byKey  map[uint64]int
	byFrom map[Sending]int
}

// Sending is one login Begin recorded.
type Sending struct {
	key    uint64
	player netip.Addr
	ok     bool
}

// NewLogins returns an empty set.
func NewLogins() *Logins {
	return &Logins{seed: maphash.MakeSeed(), byKey: map[uint64]int{}, byFrom: map[Sending]int{}}
}

// Begin records the login of the player at player whose bytes after any PROXY header
// are payload; End must follow once the backend answered or the attempt failed.
func (l *Logins) Begin(payload []byte, player netip.Addr) Sending {
	key, ok := l.key(payload)
	in := Sending{key: key, player: player, ok: ok}
	if ok {
		l.mu.Lock()
		l.byKey[key]++
		l.byFrom[in]++
		l.mu.Unlock()
	}
	return in
}

// End forgets what Begin recorded.
func (l *Logins) End(in Sending) {
	if !in.ok {
		return
	}
	l.mu.Lock()
	if l.byKey[in.key]--; l.byKey[in.key] <= 0 {
		delete(l.byKey, in.key)
	}
	if l.byFrom[in]--; l.byFrom[in] <= 0 {
		delete(l.byFrom, in)
	}
	l.mu.Unlock()
}

// Seen reports whether b, the first bytes of a connection accepted from peer, are a
// login this proxy is sending to a backend right now for a player elsewhere.
func (l *Logins) Seen(b []byte, peer netip.Addr) bool {
	key, ok := l.key(b)
	if !ok {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byKey[key] > l.byFrom[Sending{key: key, player: peer, ok: true}]
}

func (l *Logins) key(b []byte) (uint64, bool) {
	_, n, err := wire.ParseHandshake(b)
	if err != nil {
		return 0, false
	}
	_, _, m, err := wire.ParseFrame(b[n:], maxLoginFrame)
	if err != nil {
		return 0, false
	}
	return maphash.Bytes(l.seed, b[:n+m]), true
}
