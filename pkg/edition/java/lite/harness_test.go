package lite_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/wake"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	mctest.WaitFor(t, what, d, cond)
}

// received is what a fake backend saw at the start of one login.
type received = mctest.Received

// backend is the shared fake Minecraft server (status answers, login echo), with the
// address field and the lower-case verbs these tests were written with.
type backend struct {
	*mctest.Backend
	addr string
}

func newBackend(t testing.TB, statusJSON string) *backend {
	t.Helper()
	return newBackendWith(t, mctest.Options{Status: statusJSON})
}

func newBackendOn(t testing.TB, addr string, statusJSON ...string) *backend {
	t.Helper()
	o := mctest.Options{Addr: addr}
	if len(statusJSON) > 0 {
		o.Status = statusJSON[0]
	}
	return newBackendWith(t, o)
}

func newBackendWith(t testing.TB, o mctest.Options) *backend {
	t.Helper()
	b := mctest.NewBackend(t, o)
	return &backend{Backend: b, addr: b.Addr()}
}

func (b *backend) close() { b.Close() }

// kill closes the listener and every open connection (a crashed server).
func (b *backend) kill() { b.Close() }

// next returns the next login the backend recorded.
func (b *backend) next(t testing.TB) received {
	t.Helper()
	return b.NextLogin(t)
}

// refusedAddr is a loopback port nobody listens on.
func refusedAddr(t testing.TB) string {
	t.Helper()
	return mctest.RefusedAddr(t)
}

func statusJSON(name string, online, max int) string { return mctest.StatusJSON(name, online, max) }

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
	seed     uint64 // 0 is 42
	log      logr.Logger
	// wakeTargets and wake are Options.WakeTargets and Options.Wake.
	wakeTargets lite.TargetFactory
	wake        wake.Options
	// ln is the listener to serve; nil is a new one on a loopback port.
	ln net.Listener
}

// startProxy parses yaml (see liteConfig) and serves it until the test ends.
func startProxy(t testing.TB, yaml string, o ...proxyOpts) *proxy {
	t.Helper()
	var opt proxyOpts
	if len(o) > 0 {
		opt = o[0]
	}
	p := newLite(t, yaml, opt)
	ln := opt.ln
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
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

// newLite builds the proxy startProxy serves.
func newLite(t testing.TB, yaml string, opt proxyOpts) *lite.Lite {
	t.Helper()
	cfg, _, err := config.Parse([]byte(yaml), "test.yml")
	if err != nil {
		t.Fatalf("config: %v\n%s", err, yaml)
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
	p, err := lite.New(cfg, lite.Options{Log: opt.log, Seed: opt.seed, Now: opt.now, Dialer: opt.dialer, Observer: opt.obs, Resolver: opt.resolver,
		WakeTargets: opt.wakeTargets, Wake: opt.wake})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// reload parses yaml and applies it to the running proxy.
func (p *proxy) reload(yaml string) error {
	cfg, _, err := config.Parse([]byte(yaml), "test.yml")
	if err != nil {
		return err
	}
	return p.Reload(cfg)
}

// client is a raw Minecraft client speaking real protocol bytes; failures end the test.
type client struct {
	t testing.TB
	*mctest.Client
	br *bufio.Reader
}

func dialProxy(t testing.TB, addr string) *client {
	t.Helper()
	c := mctest.Dial(t, addr)
	return &client{t: t, Client: c, br: c.R}
}

func handshake(protocol int32, host string, intent int32) []byte {
	return mctest.Handshake(protocol, host, intent)
}

// loginStart is a 1.20.2+ Login Start (name + UUID).
func loginStart(name string) []byte { return mctest.LoginStart(name) }

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
func (c *client) frame() (int32, []byte, error) { return c.ReadFrame() }

// disconnectText reads a Login Disconnect and returns its JSON.
func (c *client) disconnectText() string {
	c.t.Helper()
	s, err := c.Disconnect()
	if err != nil {
		c.t.Fatalf("%v", err)
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
func (c *client) status(protocol int32, host string) (string, error) { return c.Status(protocol, host) }

// login sends a handshake + Login Start in one segment and checks the echo.
func (c *client) login(host string) {
	c.t.Helper()
	pre := mctest.LoginPreamble(765, host, "Steve")
	c.send(pre)
	if got := c.readN(len(pre)); !bytes.Equal(got, pre) {
		c.t.Fatalf("echo differs:\n got %x\nwant %x", got, pre)
	}
}
