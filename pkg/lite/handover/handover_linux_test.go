//go:build linux

package handover

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runChild is the test binary as a new process: "exit" exits at once, "silent"
// never says it is ready, "adopt" serves the players' listener ("new" to each
// connection) and answers each session on its player socket with its held bytes
// and its route.
func runChild(mode string) error {
	switch mode {
	case "exit":
		os.Exit(2)
	case "silent":
		h, err := Inherit()
		if err != nil {
			return err
		}
		defer h.Close()
		time.Sleep(time.Hour) // until the old process kills it
	}
	h, err := Inherit()
	if err != nil || h == nil {
		return errors.Join(err, errors.New("no hand-over"))
	}
	defer h.Close()
	ln, ok, err := h.Listener("players")
	if !ok || err != nil {
		return errors.Join(err, errors.New("no players listener"))
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("new\n"))
			_ = c.Close()
		}
	}()
	if err := h.Ready(); err != nil {
		return err
	}
	return h.Receive(func(s *Session) error {
		if s.Route == "refuse me" {
			s.Close()
			return errors.New("no such route here")
		}
		_, err := syscall.Write(s.ClientFD, append(append(s.HeldDown, '|'), s.Route...))
		_ = syscall.Close(s.ClientFD)
		_ = syscall.Close(s.BackendFD)
		return err
	})
}

func startChild(t *testing.T, mode string, ready time.Duration, ls ...Listener) (*Handover, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Start(Offer{Path: exe, Args: []string{"-test.run=^$"}, Env: append(os.Environ(), childMode+"="+mode),
		Listeners: ls, ReadyTimeout: ready})
}

// TestBrokenNewProcessIsKilledAndNamed: a new process that exits at once, or never
// says it is ready, hands nothing over; Start reaps it and says why.
func TestBrokenNewProcessIsKilledAndNamed(t *testing.T) {
	for _, tt := range []struct{ mode, want string }{
		{"exit", "exit status 2"},
		{"silent", "within 300ms"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			start := time.Now()
			h, err := startChild(t, tt.mode, 300*time.Millisecond)
			if h != nil || !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start: %v, want ErrNotReady naming %q", err, tt.want)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("Start took %v", took)
			}
		})
	}
}

// tcpPair is a connected pair of loopback sockets.
func tcpPair(t *testing.T) (a, b *net.TCPConn) {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, err = net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	if b, err = ln.AcceptTCP(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	return a, b
}

func fdOf(t *testing.T, c *net.TCPConn) (int, *os.File) {
	t.Helper()
	f, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	return int(f.Fd()), f
}

// TestListenersAndSessionsReachTheNewProcess: the new process accepts on the
// listener it was given, and each session it adopts arrives with its sockets and
// held bytes; one it refuses stays the old process's.
func TestListenersAndSessionsReachTheNewProcess(t *testing.T) {
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := startChild(t, "adopt", 0, Listener{Name: "players", Socket: ln})
	_ = ln.Close() // the old process stopped accepting: only the new one answers
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(c); string(b) != "new\n" {
		t.Fatalf("the new process answered %q on the listener", b)
	}
	player, proxySide := tcpPair(t)
	_, backendSide := tcpPair(t)
	cfd, cf := fdOf(t, proxySide)
	bfd, bf := fdOf(t, backendSide)
	s := sampleSession()
	s.ClientFD, s.BackendFD = cfd, bfd
	refused := s
	refused.Route = "refuse me"
	answers := make(chan error, 2)
	h.Send(&s, func(err error) { answers <- err })
	h.Send(&refused, func(err error) { answers <- err })
	if err := <-answers; err != nil {
		t.Fatal(err)
	}
	if err := <-answers; err == nil || !strings.Contains(err.Error(), "no such route") {
		t.Fatalf("a refused session: %v", err)
	}
	if err := h.Flush(); err != nil {
		t.Fatalf("a refusal broke the hand-over: %v", err)
	}
	_, _, _ = cf.Close(), bf.Close(), proxySide.Close()
	_ = backendSide.Close()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(player)
	if want := string(s.HeldDown) + "|" + s.Route; string(got) != want {
		t.Fatalf("the player read %d bytes, want the held bytes and the route", len(got))
	}
	if state, err := h.Process().Wait(); err != nil || !state.Success() {
		t.Fatalf("new process: %v %v", state, err)
	}
}
