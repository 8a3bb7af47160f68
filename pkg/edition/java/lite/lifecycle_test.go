package lite_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// fakeSRV answers _minecraft._tcp lookups from a table; DNS is not reachable here.
type fakeSRV map[string]*net.SRV

func (f fakeSRV) LookupSRV(_ context.Context, service, proto, name string) (string, []*net.SRV, error) {
	if service != "minecraft" || proto != "tcp" {
		return "", nil, errors.New("unexpected service")
	}
	if rec, ok := f[name]; ok {
		return "_minecraft._tcp." + name, []*net.SRV{rec}, nil
	}
	return "", nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func TestBackendWithoutPortUsesSRVRecord(t *testing.T) {
	b := newBackend(t, "")
	host, port, _ := net.SplitHostPort(b.addr)
	p := startProxy(t, oneRoute("*", "mc.internal.example").String(), proxyOpts{resolver: fakeSRV{"mc.internal.example": {Target: host + ".", Port: uint16(mustAtoi(t, port))}}})
	c := dialProxy(t, p.addr)
	c.login("play.example.com")
	b.next(t)
}

func TestBackendWithoutPortOrSRVUsesDefaultPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:25565")
	if err != nil {
		t.Skipf("port 25565 is busy on this machine: %v", err)
	}
	_ = ln.Close()
	b := newBackendOn(t, "127.0.0.1:25565")
	p := startProxy(t, oneRoute("*", "localhost").String(), proxyOpts{resolver: fakeSRV{}})
	c := dialProxy(t, p.addr)
	c.login("play.example.com")
	b.next(t)
}

func TestGracefulShutdownKeepsSessionsForTheGracePeriod(t *testing.T) {
	b := newBackend(t, "")
	p := startProxy(t, oneRoute("*", b.addr).withLite("shutdownGrace: 1s").String())
	c := dialProxy(t, p.addr)
	c.login("x.example.com")

	stopped := make(chan error, 1)
	start := time.Now()
	go func() { stopped <- p.stop() }()

	// New connections are refused once shutdown began...
	waitFor(t, "listener closed", 5*time.Second, func() bool {
		nc, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err == nil {
			_ = nc.Close()
		}
		return err != nil
	})
	// ...while the live session still relays.
	msg := []byte("still here " + strconv.Itoa(42))
	c.send(msg)
	if got := c.readN(len(msg)); !bytes.Equal(got, msg) {
		t.Fatalf("echo during grace: %q", got)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the grace period")
	}
	if el := time.Since(start); el < time.Second {
		t.Fatalf("Serve returned after %v, before the 1s grace period", el)
	}
	c.expectClosed()
}

// TestShutdownDuringFailoverStillServesTheLogin pins issue 20's item 6: SIGTERM while a
// login waits on a silent first backend gave the player the unavailable text although
// the grace period had seconds left. Shutdown stops accepting; a login in progress
// still fails over and joins, and Serve still returns within the grace.
func TestShutdownDuringFailoverStillServesTheLogin(t *testing.T) {
	const grace = 3 * time.Second
	for run := range 3 {
		hung := newFaultyBackend(t, mctest.FaultHang)
		good := newBackend(t, "")
		p := startProxy(t, oneRoute("*", hung.addr, good.addr).with("strategy: sequential").
			withLite("shutdownGrace: 3s", "firstResponseTimeout: 500ms").String())
		c := dialProxy(t, p.addr)
		pre := mctest.LoginPreamble(765, "x.example.com", "Steve")
		c.send(pre)
		waitFor(t, "the login waiting on the hung backend", 5*time.Second, func() bool {
			return hung.BytesIn() >= int64(len(pre))
		})
		stopped := make(chan error, 1)
		start := time.Now()
		go func() { stopped <- p.stop() }()
		_ = c.SetReadDeadline(time.Now().Add(grace))
		if got := c.readN(len(pre)); !bytes.Equal(got, pre) {
			t.Fatalf("run %d: the player got %x, want the second backend's echo", run, got)
		}
		_ = c.Close()
		select {
		case err := <-stopped:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(2 * grace):
			t.Fatalf("run %d: Serve did not return", run)
		}
		if el := time.Since(start); el > grace {
			t.Fatalf("run %d: Serve returned after %v, past the %v grace", run, el, grace)
		}
	}
}
