package mctest

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Options configure a Backend. The zero value is a healthy backend on 127.0.0.1:0 that
// answers status with StatusJSON("mctest", 0, 100) and echoes logins.
type Options struct {
	// Addr is where to listen; default "127.0.0.1:0". A fixed port lets a test restart
	// a backend where the proxy expects it.
	Addr string
	// Status is the status JSON answered to every Status Request.
	Status string
	// StatusFunc, when set, computes each status answer instead of Status.
	StatusFunc func() string
	// ProxyProtocol makes the backend read a PROXY header (v1 or v2) before the
	// handshake; it is recorded in Received.Proxy.
	ProxyProtocol bool
	// Fault selects a misbehaviour; default FaultNone.
	Fault Fault
	// Script, when set, runs on every accepted connection instead of the protocol
	// handling (Fault is then ignored). The backend closes the connection after it.
	Script func(c *net.TCPConn)
	// LoginDelay makes the server answer each login this late: a busy server whose
	// kernel accepts at once but whose first byte comes after a while.
	LoginDelay time.Duration
	// Capacity, when > 0, is how many players the server holds: a login past it gets
	// a Login Disconnect saying the server is full (counted by Refused), whatever the
	// status reports.
	Capacity int
	// FullText is that Disconnect's JSON text; default vanilla's server_full.
	FullText string
	// Record is how many login handshakes are kept for NextLogin; default 1024. Logins
	// past it are counted but not recorded, so a test that never reads cannot stall.
	Record int
}

// Received is what the backend saw at the start of one login connection.
type Received struct {
	Proxy     *proxyproto.Header // the PROXY header, with Options.ProxyProtocol
	Handshake wire.Handshake
	Raw       []byte // the handshake frame as received
}

// Backend is a fake Minecraft server on loopback. Every goroutine it starts is joined
// by Close.
type Backend struct {
	opts     Options
	addr     string
	ln       net.Listener
	release  func() // frees a black hole
	status   atomic.Pointer[func() string]
	hang     atomic.Bool
	dark     atomic.Bool // logins go unanswered (SetDark)
	refused  atomic.Int64
	got      chan Received
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	sessions []net.Conn // open login connections, oldest first
	closed   bool
	done     chan struct{} // closed by Close
	accepted atomic.Int64
	logins   atomic.Int64
	statusN  atomic.Int64
	statusHS atomic.Pointer[wire.Handshake] // the last status connection's handshake
	active   atomic.Int64
	bytesIn  atomic.Int64
	bytesOut atomic.Int64
}

// NewBackend starts a backend and closes it when the test ends.
func NewBackend(t TB, o Options) *Backend {
	t.Helper()
	b, err := Start(o)
	if err != nil {
		t.Fatalf("mctest backend: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// Start starts a backend outside a test; the caller must Close it.
func Start(o Options) (*Backend, error) {
	if o.Status == "" {
		o.Status = StatusJSON("mctest", 0, 100)
	}
	if o.Record <= 0 {
		o.Record = 1024
	}
	b := &Backend{opts: o, got: make(chan Received, o.Record), conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	b.hang.Store(o.Fault == FaultHangStatus)
	if o.StatusFunc != nil {
		b.status.Store(&o.StatusFunc)
	}
	var err error
	switch o.Fault {
	case FaultRefused:
		b.addr, err = refusedAddr()
		return b, err
	case FaultBlackhole:
		b.addr, b.release, err = blackhole()
		return b, err
	}
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	b.ln, err = net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	b.addr = b.ln.Addr().String()
	b.wg.Go(b.serve)
	return b, nil
}

// Addr is where to dial the backend.
func (b *Backend) Addr() string { return b.addr }

// Accepted counts accepted connections.
func (b *Backend) Accepted() int64 { return b.accepted.Load() }

// Logins counts connections whose handshake had the login (or transfer) intent.
func (b *Backend) Logins() int64 { return b.logins.Load() }

// StatusRequests counts Status Request packets.
func (b *Backend) StatusRequests() int64 { return b.statusN.Load() }

// StatusHandshake is the handshake of the last status connection (zero before any).
func (b *Backend) StatusHandshake() wire.Handshake {
	if hs := b.statusHS.Load(); hs != nil {
		return *hs
	}
	return wire.Handshake{}
}

// Active counts login connections open right now.
func (b *Backend) Active() int64 { return b.active.Load() }

// BytesIn counts bytes read from every connection.
func (b *Backend) BytesIn() int64 { return b.bytesIn.Load() }

// BytesOut counts bytes the kernel took from the backend's writes.
func (b *Backend) BytesOut() int64 { return b.bytesOut.Load() }

// SetStatus replaces the status JSON (and drops a StatusFunc).
func (b *Backend) SetStatus(json string) {
	b.mu.Lock()
	b.opts.Status = json
	b.mu.Unlock()
	b.status.Store(nil)
}

// SetStatusFunc makes f compute each status answer.
func (b *Backend) SetStatusFunc(f func() string) { b.status.Store(&f) }

// SetHangStatus makes status requests go unanswered (on) or answered again (off).
func (b *Backend) SetHangStatus(on bool) { b.hang.Store(on) }

// SetDark makes the server stop answering (on) or answer again (off): logins and
// status requests are read and never answered, as a frozen server whose kernel still
// accepts. Logins that arrive while dark still count in Logins.
func (b *Backend) SetDark(on bool) { b.dark.Store(on); b.hang.Store(on) }

// Refused counts the logins turned away because the server was at its Capacity.
func (b *Backend) Refused() int64 { return b.refused.Load() }

// NextLogin returns the next recorded login, failing the test after 5s without one.
func (b *Backend) NextLogin(t TB) Received {
	t.Helper()
	select {
	case r := <-b.got:
		return r
	case <-time.After(5 * time.Second):
		t.Fatalf("backend %s: no login within 5s", b.addr)
		return Received{}
	}
}

// EndSessions closes up to n open login sessions from the backend side, oldest first,
// as a server that kicks players; it returns how many it closed.
func (b *Backend) EndSessions(n int) int {
	b.mu.Lock()
	ended := b.sessions[:min(n, len(b.sessions))]
	b.mu.Unlock()
	for _, c := range ended {
		_ = c.Close()
	}
	return len(ended)
}

// session adds or removes an open login connection.
func (b *Backend) session(c net.Conn, add bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if add {
		b.sessions = append(b.sessions, c)
		return
	}
	for i, s := range b.sessions {
		if s == c {
			b.sessions = append(b.sessions[:i:i], b.sessions[i+1:]...)
			return
		}
	}
}

// Close stops accepting, closes every open connection (a crashed server, as seen by
// its peers) and waits for the backend's goroutines. It may be called more than once.
func (b *Backend) Close() {
	b.mu.Lock()
	wasClosed := b.closed
	b.closed = true
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	if !wasClosed {
		close(b.done)
		if b.ln != nil {
			_ = b.ln.Close()
		}
		if b.release != nil {
			b.release()
		}
	}
	b.wg.Wait()
}

func (b *Backend) serve() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a transient accept error (fd pressure): keep serving
		}
		b.accepted.Add(1)
		if !b.track(c, true) {
			_ = c.Close()
			return
		}
		b.wg.Go(func() {
			defer b.track(c, false)
			defer c.Close()
			b.handle(c.(*net.TCPConn))
		})
	}
}

// track adds or removes an open connection; it refuses new ones once closed.
func (b *Backend) track(c net.Conn, add bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !add {
		delete(b.conns, c)
		return true
	}
	if b.closed {
		return false
	}
	b.conns[c] = struct{}{}
	return true
}

// statusBody is the JSON for the next status answer.
func (b *Backend) statusBody() string {
	if f := b.status.Load(); f != nil {
		return (*f)()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opts.Status
}

// StatusJSON is a status response body with a version, a player count and a MOTD.
func StatusJSON(name string, online, max int) string {
	return fmt.Sprintf(`{"version":{"name":"1.20.4","protocol":765},"players":{"max":%d,"online":%d},"description":{"text":%q}}`, max, online, name)
}
