package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// fakeServer is a Minecraft server on loopback: it answers status requests with
// a fixed JSON and echoes every byte of a login connection (handshake included).
type fakeServer struct {
	ln     net.Listener
	addr   string
	status string
	logins atomic.Int64
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

func newFakeServer(t *testing.T, online, max int) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln, addr: ln.Addr().String(), conns: map[net.Conn]bool{},
		status: fmt.Sprintf(`{"version":{"name":"1.20.2","protocol":764},"players":{"max":%d,"online":%d},"description":{"text":"fake"}}`, max, online)}
	s.wg.Go(s.accept)
	t.Cleanup(s.close)
	return s
}

func (s *fakeServer) close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *fakeServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Go(func() {
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				_ = c.Close()
			}()
			s.handle(c)
		})
	}
}

func (s *fakeServer) handle(c net.Conn) {
	br := bufio.NewReader(c)
	var buf []byte
	var hs wire.Handshake
	for {
		h, _, err := wire.ParseHandshake(buf)
		if err == nil {
			hs = h
			break
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return
		}
		b, err := br.ReadByte()
		if err != nil {
			return
		}
		buf = append(buf, b)
	}
	if hs.Intent != wire.IntentStatus {
		s.logins.Add(1)
		if _, err := c.Write(buf); err != nil {
			return
		}
		_, _ = io.Copy(c, br)
		return
	}
	s.serveStatus(c, br)
}

// serveStatus answers one status request and one ping.
func (s *fakeServer) serveStatus(c net.Conn, br *bufio.Reader) {
	var pending []byte
	for {
		id, payload, n, err := wire.ParseFrame(pending, 64)
		if errors.Is(err, wire.ErrIncomplete) {
			b, err := br.ReadByte()
			if err != nil {
				return
			}
			pending = append(pending, b)
			continue
		}
		if err != nil {
			return
		}
		pending = pending[n:]
		switch id {
		case wire.IDStatusRequest:
			_, _ = c.Write(wire.AppendStatusResponse(nil, []byte(s.status)))
		case wire.IDPing:
			v, _ := wire.ParsePing(payload)
			_, _ = c.Write(wire.AppendPing(nil, v))
			return
		}
	}
}

// player is a client connection through the proxy in the login state.
type player struct {
	c    net.Conn
	sent []byte
}

// joinAs connects to proxy with host in the handshake and sends the handshake and a
// Login Start. With an echoing backend the bytes come back.
func joinAs(t *testing.T, proxy, host, name string) *player {
	t.Helper()
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	out := wire.AppendHandshake(nil, wire.Handshake{Protocol: 764, Address: host, Port: 25565, Intent: 2})
	out = wire.AppendFrame(out, 0x00, wire.AppendString(nil, name))
	if _, err := c.Write(out); err != nil {
		t.Fatal(err)
	}
	return &player{c: c, sent: out}
}

// echoed reads back what was sent and reports whether it matched.
func (p *player) echoed() error {
	got := make([]byte, len(p.sent))
	if _, err := io.ReadFull(p.c, got); err != nil {
		return err
	}
	if !bytes.Equal(got, p.sent) {
		return fmt.Errorf("echo %x, want %x", got, p.sent)
	}
	return nil
}

// roundTrip sends more bytes on a live session and reads them back.
func (p *player) roundTrip(msg string) error {
	if _, err := p.c.Write([]byte(msg)); err != nil {
		return err
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(p.c, got); err != nil {
		return err
	}
	if string(got) != msg {
		return fmt.Errorf("got %q, want %q", got, msg)
	}
	p.sent = append(p.sent, msg...)
	return nil
}

// ping runs a status exchange for host through the proxy and returns the JSON.
func ping(t *testing.T, proxy, host string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	out := wire.AppendHandshake(nil, wire.Handshake{Protocol: 764, Address: host, Port: 25565, Intent: wire.IntentStatus})
	out = wire.AppendStatusRequest(out)
	out = wire.AppendPing(out, 42)
	if _, err := c.Write(out); err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	_, payload, _, err := wire.ParseFrame(data, wire.MaxStatusResponseLen)
	if err != nil {
		t.Fatalf("status frame: %v (%x)", err, data)
	}
	body, err := wire.ParseStatusResponse(payload)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
