package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// fakeServer is the shared fake Minecraft server: it answers status requests with a
// fixed player count and echoes every byte of a login connection (handshake included).
type fakeServer struct {
	*mctest.Backend
	addr string
}

func newFakeServer(t *testing.T, online, max int) *fakeServer {
	t.Helper()
	b := mctest.NewBackend(t, mctest.Options{Status: mctest.StatusJSON("fake", online, max)})
	return &fakeServer{Backend: b, addr: b.Addr()}
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
	out := mctest.LoginPreamble(764, host, name)
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
	body, err := mctest.Ping(proxy, 764, host)
	if err != nil {
		t.Fatalf("status via %s: %v", proxy, err)
	}
	return body
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	return mctest.RefusedAddr(t)
}

// session is a joined player whose bytes are echoed by its backend.
type session struct {
	c net.Conn
}

// join logs in through proxy and returns the session once its backend echoed
// the login; ok is false when the proxy answered anything else.
func join(t *testing.T, proxy, host string) (*session, string, bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	pre := mctest.LoginPreamble(765, host, "Steve")
	if _, err := c.Write(pre); err != nil {
		t.Fatal(err)
	}
	cl := mctest.NewClient(c)
	got := make([]byte, len(pre))
	if _, err := io.ReadFull(cl.R, got[:1]); err != nil {
		_ = c.Close()
		return nil, "closed: " + err.Error(), false
	}
	if got[0] != pre[0] { // not the echo: a Disconnect frame
		_ = c.Close()
		return nil, "refused", false
	}
	if _, err := io.ReadFull(cl.R, got[1:]); err != nil || string(got) != string(pre) {
		_ = c.Close()
		return nil, fmt.Sprintf("bad echo: %v", err), false
	}
	_ = c.SetDeadline(time.Time{})
	t.Cleanup(func() { _ = c.Close() })
	return &session{c: c}, "", true
}

// refusal logs in and returns the Disconnect text.
func refusal(t *testing.T, proxy, host string) string {
	t.Helper()
	c := mctest.Dial(t, proxy)
	_ = c.Conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Conn.Write(mctest.LoginPreamble(765, host, "Steve")); err != nil {
		t.Fatal(err)
	}
	text, err := c.Disconnect()
	if err != nil {
		return "no disconnect: " + err.Error()
	}
	return text
}

// alive reports whether the session still carries bytes both ways.
func (s *session) alive() bool {
	_ = s.c.SetDeadline(time.Now().Add(5 * time.Second))
	defer func() { _ = s.c.SetDeadline(time.Time{}) }()
	msg := []byte("ping")
	if _, err := s.c.Write(msg); err != nil {
		return false
	}
	got := make([]byte, len(msg))
	_, err := io.ReadFull(s.c, got)
	return err == nil && string(got) == string(msg)
}

// until polls cond and returns how long it took to hold.
func until(t *testing.T, what string, d time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	mctest.WaitFor(t, what, d, cond)
	return time.Since(start)
}
