package lite_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s", d, what)
		case <-tick.C:
		}
	}
}

// received is what a fake backend saw on one connection.
type received struct {
	proxy *proxyproto.Header
	hs    wire.Handshake
	raw   []byte // handshake frame as received
}

// backend is a fake Minecraft server on loopback. Status: answers with statusJSON and
// pongs. Login: records the handshake and echoes every byte it receives (handshake
// included), so a client can check byte-exact replay.
type backend struct {
	t          testing.TB
	ln         net.Listener
	addr       string
	statusJSON string
	proxyProto atomic.Bool // expect a PROXY header first
	// status, when set, computes each status answer instead of statusJSON.
	status atomic.Pointer[func() string]
	// hangStatus makes status exchanges never answer (a hung backend).
	hangStatus atomic.Bool

	statusRequests atomic.Int64
	statusHS       atomic.Pointer[wire.Handshake] // the last status exchange's handshake
	logins         atomic.Int64
	active         atomic.Int64
	got            chan received
	wg             sync.WaitGroup
	mu             sync.Mutex
	conns          []net.Conn
}

func newBackend(t testing.TB, statusJSON string) *backend {
	t.Helper()
	return newBackendOn(t, "127.0.0.1:0", statusJSON)
}

func newBackendOn(t testing.TB, addr string, statusJSON ...string) *backend {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	b := &backend{t: t, ln: ln, addr: ln.Addr().String(), got: make(chan received, 1024)}
	if len(statusJSON) > 0 {
		b.statusJSON = statusJSON[0]
	}
	b.wg.Go(b.serve)
	t.Cleanup(b.close)
	return b
}

func (b *backend) close() {
	_ = b.ln.Close()
	b.mu.Lock()
	for _, c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// kill closes the listener and every open connection (a crashed server).
func (b *backend) kill() { b.close() }

func (b *backend) serve() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns = append(b.conns, c)
		b.mu.Unlock()
		b.wg.Go(func() {
			defer c.Close()
			b.handle(c)
		})
	}
}

func (b *backend) handle(c net.Conn) {
	br := bufio.NewReader(c)
	var rec received
	if b.proxyProto.Load() {
		h, err := proxyproto.Read(br)
		if err != nil {
			return
		}
		rec.proxy = h
	}
	var buf []byte
	for {
		hs, n, err := wire.ParseHandshake(buf)
		if err == nil {
			rec.hs, rec.raw = hs, append([]byte(nil), buf[:n]...)
			buf = buf[n:]
			break
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return
		}
		bt, err := br.ReadByte()
		if err != nil {
			return
		}
		buf = append(buf, bt)
	}
	if rec.hs.Intent == wire.IntentStatus {
		b.statusHS.Store(&rec.hs)
		b.serveStatus(c, br, buf)
		return
	}
	b.logins.Add(1)
	b.active.Add(1)
	defer b.active.Add(-1)
	select {
	case b.got <- rec:
	default: // a test that never calls next must not stall the fake after 1024 logins
	}
	// Echo: the handshake, anything already buffered, then the stream.
	if _, err := c.Write(append(append([]byte(nil), rec.raw...), buf...)); err != nil {
		return
	}
	_, _ = io.Copy(c, br)
}

func (b *backend) serveStatus(c net.Conn, br *bufio.Reader, buf []byte) {
	for {
		id, payload, n, err := wire.ParseFrame(buf, 64)
		if errors.Is(err, wire.ErrIncomplete) {
			bt, rerr := br.ReadByte()
			if rerr != nil {
				return
			}
			buf = append(buf, bt)
			continue
		}
		if err != nil {
			return
		}
		buf = buf[n:]
		switch id {
		case wire.IDStatusRequest:
			b.statusRequests.Add(1)
			if b.hangStatus.Load() {
				_, _ = io.Copy(io.Discard, br)
				return
			}
			body := b.statusJSON
			if f := b.status.Load(); f != nil {
				body = (*f)()
			}
			_, _ = c.Write(wire.AppendStatusResponse(nil, []byte(body)))
		case wire.IDPing:
			v, _ := wire.ParsePing(payload)
			_, _ = c.Write(wire.AppendPing(nil, v))
			return
		}
	}
}

// lastStatusHandshake is the handshake of the last status exchange the backend saw.
func (b *backend) lastStatusHandshake() wire.Handshake {
	if hs := b.statusHS.Load(); hs != nil {
		return *hs
	}
	b.t.Fatalf("backend %s: no status exchange yet", b.addr)
	return wire.Handshake{}
}

// next returns the next login the backend recorded.
func (b *backend) next(t testing.TB) received {
	t.Helper()
	select {
	case r := <-b.got:
		return r
	case <-time.After(5 * time.Second):
		t.Fatalf("backend %s: no login within 5s", b.addr)
		return received{}
	}
}

// refusedAddr is a loopback port nobody listens on.
func refusedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func statusJSON(name string, online, max int) string {
	return fmt.Sprintf(`{"version":{"name":"1.20.4","protocol":765},"players":{"max":%d,"online":%d},"description":{"text":%q}}`, max, online, name)
}

// proxy is a running Lite instance on a loopback port.
type proxy struct {
	*lite.Lite
	addr string
	// stop cancels Serve and waits for it to return.
	stop func() error
}

type proxyOpts struct {
	now      func() time.Time
	dialer   lite.Dialer
	obs      lite.Observer
	resolver lite.Resolver
	seed     uint64
	log      logr.Logger
}

// startProxy parses yaml (with {{name}} placeholders already filled) and serves it.
func startProxy(t testing.TB, yaml string, o ...proxyOpts) *proxy {
	t.Helper()
	cfg, _, err := config.Parse([]byte(yaml), "test.yml")
	if err != nil {
		t.Fatalf("config: %v\n%s", err, yaml)
	}
	var opt proxyOpts
	if len(o) > 0 {
		opt = o[0]
	}
	if opt.seed == 0 {
		opt.seed = 42
	}
	if opt.log.GetSink() == nil {
		if tt, ok := t.(*testing.T); ok && testing.Verbose() {
			opt.log = testr.New(tt)
		} else {
			opt.log = logr.Discard()
		}
	}
	p, err := lite.New(cfg, lite.Options{Log: opt.log, Seed: opt.seed, Now: opt.now, Dialer: opt.dialer, Observer: opt.obs, Resolver: opt.resolver})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-done:
			case <-time.After(15 * time.Second):
				serveErr = errors.New("proxy did not stop within 15s")
			}
		})
		return serveErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	waitFor(t, "proxy ready", 5*time.Second, p.Ready)
	return &proxy{Lite: p, addr: ln.Addr().String(), stop: stop}
}

// fill replaces {{key}} placeholders.
func fill(tmpl string, kv ...string) string {
	r := strings.NewReplacer(func() []string {
		var out []string
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, "{{"+kv[i]+"}}", kv[i+1])
		}
		return out
	}()...)
	return r.Replace(tmpl)
}

// client is a raw Minecraft client speaking real protocol bytes.
type client struct {
	t testing.TB
	net.Conn
	br *bufio.Reader
}

func dialProxy(t testing.TB, addr string) *client {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { _ = c.Close() })
	return &client{t: t, Conn: c, br: bufio.NewReader(c)}
}

func handshake(protocol int32, host string, intent int32) []byte {
	return wire.AppendHandshake(nil, wire.Handshake{Protocol: protocol, Address: host, Port: 25565, Intent: intent})
}

// loginStart is a 1.20.2+ Login Start (name + UUID).
func loginStart(name string) []byte {
	payload := wire.AppendString(nil, name)
	payload = append(payload, bytes.Repeat([]byte{0xAB}, 16)...)
	return wire.AppendFrame(nil, 0x00, payload)
}

func (c *client) send(b ...[]byte) {
	c.t.Helper()
	if _, err := c.Write(bytes.Join(b, nil)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// readN reads exactly n bytes.
func (c *client) readN(n int) []byte {
	c.t.Helper()
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.br, buf); err != nil {
		c.t.Fatalf("read %d bytes: %v", n, err)
	}
	return buf
}

// frame reads one frame.
func (c *client) frame() (int32, []byte, error) {
	var buf []byte
	for {
		id, payload, _, err := wire.ParseFrame(buf, 1<<20)
		if err == nil {
			return id, payload, nil
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return 0, nil, err
		}
		bt, err := c.br.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		buf = append(buf, bt)
	}
}

// disconnectText reads a Login Disconnect and returns its JSON.
func (c *client) disconnectText() string {
	c.t.Helper()
	id, payload, err := c.frame()
	if err != nil {
		c.t.Fatalf("read disconnect: %v", err)
	}
	if id != wire.IDLoginDisconnect {
		c.t.Fatalf("got frame id %d, want login disconnect", id)
	}
	s, _, err := wire.ParseString(payload, 1<<16)
	if err != nil {
		c.t.Fatalf("disconnect payload: %v", err)
	}
	return s
}

// expectClosed asserts the proxy closes the connection without sending anything more.
func (c *client) expectClosed() {
	c.t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.br.Read(make([]byte, 1))
	if n != 0 || (err != io.EOF && !isReset(err)) {
		c.t.Fatalf("want close, got n=%d err=%v", n, err)
	}
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "reset")
}

// status does a full status exchange and returns the JSON.
func (c *client) status(protocol int32, host string) (string, error) {
	c.send(handshake(protocol, host, wire.IntentStatus), wire.AppendStatusRequest(nil))
	id, payload, err := c.frame()
	if err != nil {
		return "", err
	}
	if id != 0 {
		return "", fmt.Errorf("status response id %d", id)
	}
	body, err := wire.ParseStatusResponse(payload)
	if err != nil {
		return "", err
	}
	c.send(wire.AppendPing(nil, 12345))
	id, payload, err = c.frame()
	if err != nil {
		return "", fmt.Errorf("pong: %w", err)
	}
	if v, _ := wire.ParsePing(payload); id != wire.IDPing || v != 12345 {
		return "", fmt.Errorf("bad pong id=%d", id)
	}
	return string(body), nil
}

// login sends a handshake + Login Start in one segment and checks the echo.
func (c *client) login(host string) {
	c.t.Helper()
	hs := handshake(765, host, wire.IntentLogin)
	ls := loginStart("Steve")
	c.send(hs, ls)
	got := c.readN(len(hs) + len(ls))
	if !bytes.Equal(got, append(append([]byte(nil), hs...), ls...)) {
		c.t.Fatalf("echo differs:\n got %x\nwant %x%x", got, hs, ls)
	}
}
