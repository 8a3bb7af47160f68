package lite_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// loginTap relays connections from a listener of its own to target and records how
// each login began: its handshake and Login Start frames, byte for byte, by the
// player's name and the handshake's intent. Put in front of the proxy it shows
// what a client sent; behind it, what the backend got. Every goroutine it
// starts is joined by close.
type loginTap struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	logins map[string][]byte // "name/intent" -> the first two frames
}

func listenTap(addr, target string) (*loginTap, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tap on %s: %w", addr, err)
	}
	tp := &loginTap{ln: ln, target: target, conns: map[net.Conn]struct{}{}, logins: map[string][]byte{}}
	tp.wg.Go(tp.serve)
	return tp, nil
}

// newTap is listenTap on a free loopback port, closed when the test ends.
func newTap(t *testing.T, target string) *loginTap {
	t.Helper()
	tp, err := listenTap("127.0.0.1:0", target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tp.close)
	return tp
}

func (tp *loginTap) addr() string { return tp.ln.Addr().String() }

// login is the recorded start of name's login with the given intent.
func (tp *loginTap) login(name string, intent int32) []byte {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.logins[fmt.Sprintf("%s/%d", name, intent)]
}

func (tp *loginTap) serve() {
	for {
		c, err := tp.ln.Accept()
		if err != nil {
			return
		}
		if !tp.track(c, true) {
			_ = c.Close()
			return
		}
		tp.wg.Go(func() {
			defer tp.track(c, false)
			tp.relay(c)
		})
	}
}

// relay reads the first two frames, records them, and then copies both ways
// until either side ends.
func (tp *loginTap) relay(c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	head, read, err := readHead(c)
	if err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	tp.record(head)
	up, err := net.DialTimeout("tcp", tp.target, 5*time.Second)
	if err != nil {
		return
	}
	if !tp.track(up, true) {
		_ = up.Close()
		return
	}
	defer tp.track(up, false)
	defer up.Close()
	if _, err := up.Write(read); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(c, up)
		_ = c.Close()
	}()
	_, _ = io.Copy(up, c)
	_ = up.Close()
	<-done
}

// readHead reads until the first two frames are whole; head is those frames,
// read everything read so far.
func readHead(c net.Conn) (head, read []byte, err error) {
	buf := make([]byte, 0, 512)
	chunk := make([]byte, 512)
	for {
		n, rerr := c.Read(chunk)
		buf = append(buf, chunk[:n]...)
		_, _, n1, err := wire.ParseFrame(buf, 1<<15)
		if err == nil {
			_, _, n2, err2 := wire.ParseFrame(buf[n1:], 1<<15)
			if err2 == nil {
				return bytes.Clone(buf[:n1+n2]), buf, nil
			}
			err = err2
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return nil, nil, err
		}
		if rerr != nil {
			return nil, nil, rerr
		}
	}
}

// record keeps a login's first frames; status pings are not kept.
func (tp *loginTap) record(head []byte) {
	hs, n, err := wire.ParseHandshake(head)
	if err != nil || hs.Intent == wire.IntentStatus {
		return
	}
	ls, _, err := wire.ParseLoginStart(head[n:], hs.Protocol)
	if err != nil {
		return
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.logins[fmt.Sprintf("%s/%d", ls.Name, hs.Intent)] = head
}

// track adds or removes an open connection; it refuses to add once closed.
func (tp *loginTap) track(c net.Conn, add bool) bool {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if !add {
		delete(tp.conns, c)
		return true
	}
	if tp.conns == nil {
		return false
	}
	tp.conns[c] = struct{}{}
	return true
}

func (tp *loginTap) close() {
	_ = tp.ln.Close()
	tp.mu.Lock()
	for c := range tp.conns {
		_ = c.Close()
	}
	tp.conns = nil
	tp.mu.Unlock()
	tp.wg.Wait()
}
