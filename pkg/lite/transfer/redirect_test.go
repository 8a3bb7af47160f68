package transfer_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/transfer"
)

var steve = wire.LoginStart{Name: "Steve", UUID: [16]byte{0x06, 0x9a, 0x79, 0xf4, 0x44, 0xe9, 0x47, 0x26, 0xa5, 0xbe, 0xfc, 0xa9, 0x0e, 0x38, 0xaa, 0xf5}, HasUUID: true}

var target = transfer.Target{Host: "new.example.com", Port: 25570}

// pair is a real loopback connection: the proxy's end runs Redirect on a goroutine
// the test joins; the test plays the client on the other end.
type pair struct {
	client net.Conn
	done   chan error
}

func redirect(t *testing.T, protocol int32, timeout time.Duration) pair {
	t.Helper()
	ln := mctest.Listen(t)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	p := pair{client: client, done: make(chan error, 1)}
	go func() {
		defer server.Close()
		ls := wire.AppendLoginStart(nil, protocol, steve, nil)
		p.done <- transfer.Redirect(server, protocol, ls, target, timeout)
	}()
	t.Cleanup(func() { client.Close() })
	return p
}

// result waits for Redirect to return, failing the test if it does not within d.
func (p pair) result(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(d):
		t.Fatalf("Redirect still running after %v", d)
		return nil
	}
}

// readFrame reads one frame as the client, under a deadline.
func readFrame(t *testing.T, c net.Conn) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b []byte
	tmp := make([]byte, 1024)
	for {
		if _, _, n, err := wire.ParseFrame(b, 1<<16); err == nil {
			return b[:n]
		}
		n, err := c.Read(tmp)
		b = append(b, tmp[:n]...)
		if err != nil {
			t.Fatalf("read frame: %v (have %x)", err, b)
		}
	}
}

func TestRedirectLogsInAndTransfers(t *testing.T) {
	for _, protocol := range []int32{766, 767, 768, 775} {
		ids, _ := wire.LookupTransfer(protocol)
		p := redirect(t, protocol, 5*time.Second)
		if got, want := readFrame(t, p.client), ids.AppendLoginSuccess(nil, steve.UUID, steve.Name); !bytes.Equal(got, want) {
			t.Fatalf("protocol %d: login success %x, want %x", protocol, got, want)
		}
		// What a vanilla client sends next: Login Acknowledged, then (already in the
		// configuration state) its brand and settings, which the proxy need not read.
		ack := wire.AppendFrame(nil, ids.LoginAcknowledged, nil)
		_, _ = p.client.Write(append(ack, wire.AppendFrame(nil, 0x02, []byte("\x0fminecraft:brand\x07vanilla"))...))
		if got, want := readFrame(t, p.client), ids.AppendTransfer(nil, target.Host, target.Port); !bytes.Equal(got, want) {
			t.Fatalf("protocol %d: transfer %x, want %x", protocol, got, want)
		}
		p.client.Close() // the client leaves to follow the Transfer
		if err := p.result(t, 5*time.Second); err != nil {
			t.Fatalf("protocol %d: Redirect = %v", protocol, err)
		}
	}
}

func TestRedirectUnknownVersionWritesNothing(t *testing.T) {
	for _, protocol := range []int32{765, 776, 1<<30 | 250} {
		p := redirect(t, protocol, 5*time.Second)
		if err := p.result(t, 5*time.Second); !errors.Is(err, transfer.ErrUnsupported) {
			t.Fatalf("protocol %d: Redirect = %v, want ErrUnsupported", protocol, err)
		}
		_ = p.client.SetReadDeadline(time.Now().Add(time.Second))
		if n, err := p.client.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			t.Fatalf("protocol %d: client read %d bytes (%v), want nothing before the close", protocol, n, err)
		}
	}
}

// Hostile clients: each costs at most one bounded wait, and Redirect returns.
func TestRedirectHostileClients(t *testing.T) {
	ids, _ := wire.LookupTransfer(768)
	for _, tc := range []struct {
		name string
		send []byte
		want error
	}{
		{"never acknowledges", nil, os.ErrDeadlineExceeded},
		{"garbage instead of an ack", []byte{0x03, 0x7f, 0x01, 0x02}, wire.ErrMalformed},
		{"ack with a payload", wire.AppendFrame(nil, ids.LoginAcknowledged, []byte{1}), wire.ErrMalformed},
		{"oversized frame", []byte{0xff, 0xff, 0x7f}, wire.ErrTooLarge},
		{"bad length prefix", []byte{0xff, 0xff, 0xff, 0xff}, wire.ErrMalformed},
		{"hangs up", []byte{}, io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := redirect(t, 768, 300*time.Millisecond)
			readFrame(t, p.client)
			if tc.send != nil {
				_, _ = p.client.Write(tc.send)
			}
			if len(tc.send) == 0 && tc.send != nil {
				p.client.Close()
			}
			if err := p.result(t, 5*time.Second); !errors.Is(err, tc.want) {
				t.Fatalf("Redirect = %v, want %v", err, tc.want)
			}
		})
	}
}

// A client that lingers after its Transfer (or keeps sending) is cut after the
// timeout: the wait for it to hang up is bounded too.
func TestRedirectClientThatLingersIsCut(t *testing.T) {
	ids, _ := wire.LookupTransfer(768)
	p := redirect(t, 768, 300*time.Millisecond)
	readFrame(t, p.client)
	_, _ = p.client.Write(wire.AppendFrame(nil, ids.LoginAcknowledged, nil))
	readFrame(t, p.client)
	start := time.Now()
	if err := p.result(t, 5*time.Second); err != nil {
		t.Fatalf("Redirect = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Redirect took %v after the transfer", d)
	}
}

func TestDisconnectNamesTheAddress(t *testing.T) {
	_, payload, _, err := wire.ParseFrame(transfer.Disconnect("new.example.com:25570"), 1<<16)
	if err != nil || !bytes.Contains(payload, []byte("new.example.com:25570")) {
		t.Fatalf("disconnect %q (%v) does not name the address", payload, err)
	}
}

// A parked client that answers its keep-alives stays parked for many intervals
// and is released by ready.
func TestParkHoldsAnAnsweringClient(t *testing.T) {
	ids, _ := wire.LookupTransfer(767)
	ln := mctest.Listen(t)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		cv, err := transfer.Login(server, 767, wire.AppendLoginStart(nil, 767, steve, nil), time.Second)
		if err == nil {
			err = cv.Park(context.Background(), ready, 50*time.Millisecond)
		}
		done <- err
	}()
	readFrame(t, client)
	_, _ = client.Write(wire.AppendFrame(nil, ids.LoginAcknowledged, nil))
	for kept := 0; kept < 20; kept++ { // 1 s, ten times the client's allowance
		_, p, _, _ := wire.ParseFrame(readFrame(t, client), 64)
		_, _ = client.Write(wire.AppendFrame(nil, ids.KeepAliveServerbound, p))
	}
	close(ready)
	if err := (pair{done: done}).result(t, 5*time.Second); err != nil {
		t.Fatalf("Park = %v, want nil once ready", err)
	}
}
