package main

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

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
