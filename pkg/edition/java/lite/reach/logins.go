package reach

import (
	"hash/maphash"
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
// handshakes to one host are alike, so they would refuse each other.
type Logins struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64]int
}

// NewLogins returns an empty set.
func NewLogins() *Logins { return &Logins{seed: maphash.MakeSeed(), m: map[uint64]int{}} }

// Begin records the login whose bytes after any PROXY header are payload; End(key,
// ok) must follow once the backend answered or the attempt failed.
func (l *Logins) Begin(payload []byte) (key uint64, ok bool) {
	if key, ok = l.key(payload); ok {
		l.mu.Lock()
		l.m[key]++
		l.mu.Unlock()
	}
	return key, ok
}

// End forgets what Begin recorded.
func (l *Logins) End(key uint64, ok bool) {
	if !ok {
		return
	}
	l.mu.Lock()
	if l.m[key]--; l.m[key] <= 0 {
		delete(l.m, key)
	}
	l.mu.Unlock()
}

// Seen reports whether b, the first bytes of an accepted connection, are a login this
// proxy is sending to a backend right now.
func (l *Logins) Seen(b []byte) bool {
	key, ok := l.key(b)
	if !ok {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[key] > 0
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
