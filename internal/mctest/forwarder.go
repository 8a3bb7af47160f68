package mctest

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Forwarder relays connections from a listener of its own to a target (a TCP
// address or a unix socket) and can cut them: to whoever dials it, the target
// went away. Tests put it in front of an engine they cannot stop themselves (a
// shared API server, a shared Docker daemon). Every goroutine it starts is
// joined when the test ends.
type Forwarder struct {
	network, target string
	ln              net.Listener
	addr            string
	cut             atomic.Bool
	refused         atomic.Int64
	mu              sync.Mutex
	conns           map[net.Conn]struct{}
	wg              sync.WaitGroup
}

// NewForwarder listens on 127.0.0.1:0 (network "tcp") or on a socket in a
// temporary directory ("unix") and relays each connection to target.
func NewForwarder(t TB, network, target string) *Forwarder {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		dir, err := os.MkdirTemp("", "mctest-fwd")
		if err != nil {
			t.Fatalf("forwarder: %v", err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		addr = filepath.Join(dir, "fwd.sock")
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatalf("forwarder: %v", err)
	}
	f := &Forwarder{network: network, target: target, ln: ln, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	f.wg.Go(f.serve)
	t.Cleanup(func() {
		_ = f.ln.Close()
		f.closeAll()
		f.wg.Wait()
	})
	return f
}

// Addr is where to dial the target through the forwarder.
func (f *Forwarder) Addr() string { return f.addr }

// Cut closes every relayed connection and closes each new one at once until
// Restore, as an engine that died and whose port still answers nothing useful.
func (f *Forwarder) Cut() { f.cut.Store(true); f.closeAll() }

// Restore relays new connections again.
func (f *Forwarder) Restore() { f.cut.Store(false) }

// Refused counts the connections closed at once while cut (a client's retries).
func (f *Forwarder) Refused() int64 { return f.refused.Load() }

func (f *Forwarder) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		if f.cut.Load() {
			f.refused.Add(1)
			_ = c.Close()
			continue
		}
		up, err := net.Dial(f.network, f.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		f.track(true, c, up)
		if f.cut.Load() { // cut while this one was dialling: closeAll missed it
			_, _ = c.Close(), up.Close()
		}
		f.wg.Go(func() {
			relayBoth(c, up)
			f.track(false, c, up)
		})
	}
}

// relayBoth copies both ways until either side ends, then closes both: a cut
// must look like a dead peer.
func relayBoth(a, b net.Conn) {
	var wg sync.WaitGroup
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		_ = dst.Close()
		_ = src.Close()
	}
	wg.Go(func() { cp(a, b) })
	cp(b, a)
	wg.Wait()
}

func (f *Forwarder) track(add bool, cs ...net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range cs {
		if add {
			f.conns[c] = struct{}{}
		} else {
			delete(f.conns, c)
		}
	}
}

func (f *Forwarder) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		_ = c.Close()
	}
}
