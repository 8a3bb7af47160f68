package lite_test

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// waitStatusRequests waits until every server answered n status requests:
// its probes alone make its median.
func waitStatusRequests(t *testing.T, n int64, servers ...*loadServer) {
	t.Helper()
	waitFor(t, "status answers from every backend", 10*time.Second, func() bool {
		for _, s := range servers {
			if s.StatusRequests() < n {
				return false
			}
		}
		return true
	})
}

// holdLogins logs n players in through p, perRound of them per probe round
// of servers (each answered one more status request), and keeps their
// sessions, so that "fewest players first" is exact and the strategy's
// rounds pass as they do between real players.
func holdLogins(t *testing.T, p *proxy, n, perRound int, servers ...*loadServer) {
	t.Helper()
	for i := range n {
		if i > 0 && i%perRound == 0 {
			waitStatusRequests(t, minStatusRequests(servers)+1, servers...)
		}
		dialProxy(t, p.addr).login("lobby.example.com")
	}
}

func minStatusRequests(servers []*loadServer) int64 {
	least := servers[0].StatusRequests()
	for _, s := range servers[1:] {
		least = min(least, s.StatusRequests())
	}
	return least
}

// Regression for issue 22, defect 3: status answers and login first bytes
// shared one median, so the backend that got the logins collected their
// fast samples and an identical backend that only answered probes never won
// again (0 of 120 logins). Here both servers take 40ms to build a status
// answer and echo a login at once.
func TestIdenticalBackendsShareDespiteFastLoginFirstBytes(t *testing.T) {
	a, b := newLoadServer(t, 1000, "Lobby"), newLoadServer(t, 1000, "Lobby")
	for _, s := range []*loadServer{a, b} {
		sd := &serverDelay{d: 40 * time.Millisecond}
		sd.wrap(s)
	}
	p := startProxy(t, routeConfig(strategy.LowestLatency, 50*time.Millisecond, addrs(a, b)...))
	waitStatusRequests(t, 1, a, b)
	holdLogins(t, p, 120, 2, a, b)
	t.Logf("logins a %d, b %d of 120", a.Logins(), b.Logins())
	for _, s := range []*loadServer{a, b} {
		if got := s.Logins(); got < 48 || got > 72 {
			t.Fatalf("logins a %d, b %d of 120, want each identical backend to get 40-60%%", a.Logins(), b.Logins())
		}
	}
}

// Regression for issue 22, defect 4: a server whose logins are 30% at
// 400ms kept about half of the players behind a fast median. Its slow
// logins now pay at once (the second within the window), and the steady
// backend takes the rest.
func TestBimodalLoginServerGetsAtMost15Percent(t *testing.T) {
	steady, bimodal := newLoadServer(t, 1000, "Lobby"), newLoadServer(t, 1000, "Lobby")
	front := newSlowFront(t, bimodal.addr, 30, 400*time.Millisecond, 22)
	p := startProxy(t, routeConfig(strategy.LowestLatency, 50*time.Millisecond, steady.addr, front.addr()))
	waitStatusRequests(t, 1, steady, bimodal)
	holdLogins(t, p, 120, 2, steady, bimodal)
	got := bimodal.Logins()
	t.Logf("logins steady %d, bimodal %d of 120 (%d of them slow)", steady.Logins(), got, front.slow.Load())
	if got*100 > 15*120 {
		t.Fatalf("the bimodal server got %d of 120 logins, want at most 15%%", got)
	}
}

// slowFront is the server side of a bimodal backend: it relays every
// connection to target, and holds pct% of the logins (seeded) for delay
// before the server sees them, so their first byte comes that late.
type slowFront struct {
	ln     net.Listener
	target string
	pct    int
	delay  time.Duration
	done   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	rng    *rand.Rand
	conns  map[net.Conn]struct{}
	closed bool
	slow   atomic.Int64
}

func newSlowFront(t *testing.T, target string, pct int, delay time.Duration, seed uint64) *slowFront {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &slowFront{ln: ln, target: target, pct: pct, delay: delay, done: make(chan struct{}),
		rng: rand.New(rand.NewPCG(seed, 4)), conns: map[net.Conn]struct{}{}}
	f.wg.Go(f.serve)
	t.Cleanup(f.close)
	return f
}

func (f *slowFront) addr() string { return f.ln.Addr().String() }

func (f *slowFront) close() {
	_ = f.ln.Close()
	close(f.done)
	f.mu.Lock()
	f.closed = true
	for c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// track registers c to be closed with the front; false when it is closing.
func (f *slowFront) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		_ = c.Close()
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *slowFront) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		if !f.track(c) {
			return
		}
		f.wg.Go(func() { f.relay(c) })
	}
}

// relay reads the handshake, holds a slow login, then pipes both ways.
func (f *slowFront) relay(c net.Conn) {
	defer c.Close()
	var buf []byte
	chunk := make([]byte, 512)
	for {
		hs, _, err := wire.ParseHandshake(buf)
		if err == nil {
			if hs.Intent == wire.IntentLogin && f.drawSlow() {
				f.slow.Add(1)
				// The timer is the server being slow, not synchronisation.
				t := time.NewTimer(f.delay)
				select {
				case <-t.C:
				case <-f.done:
					t.Stop()
					return
				}
			}
			break
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return
		}
		n, err := c.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil {
			return
		}
	}
	s, err := net.Dial("tcp", f.target)
	if err != nil || !f.track(s) {
		return
	}
	defer s.Close()
	if _, err := s.Write(buf); err != nil {
		return
	}
	var both sync.WaitGroup
	both.Go(func() { _, _ = io.Copy(s, c); _ = s.Close() })
	_, _ = io.Copy(c, s)
	_ = c.Close()
	both.Wait()
}

func (f *slowFront) drawSlow() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.IntN(100) < f.pct
}
