//go:build linux

package lite_test

import (
	"io"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"
)

// BenchmarkIdleSessions holds idleSessions logged-in sessions through one proxy and
// reports what each costs the process while all of them idle: goroutines, descriptors
// (the proxy's two sockets), and heap plus stack bytes. The test's own ends (client
// and backend sockets) hold no goroutine, so the goroutine count is the proxy's alone;
// the byte figures include the test's two net.TCPConns per session (a few hundred
// bytes). tools/mcload hold measures RSS with the proxy in a process of its own.
func BenchmarkIdleSessions(b *testing.B) {
	const idleSessions = 500
	pre := preamble()
	bk := newHoldBackend(b, len(pre))
	p := relayProxy(b, bk.addr, nil)
	var goroutines, fds, heap, stack float64
	for b.Loop() {
		runtime.GC()
		g0, f0, m0 := runtime.NumGoroutine(), openFDs(b), memStats()
		conns := make([]net.Conn, idleSessions)
		for i := range conns {
			conns[i] = holdSession(b, p.addr, pre)
		}
		settle(b, g0)
		runtime.GC()
		m1 := memStats()
		goroutines += float64(runtime.NumGoroutine() - g0)
		fds += float64(openFDs(b)-f0) - 2*idleSessions // minus the test's own two ends
		heap += float64(m1.HeapInuse) - float64(m0.HeapInuse)
		stack += float64(m1.StackInuse) - float64(m0.StackInuse)
		for _, c := range conns {
			_ = c.Close()
		}
		bk.closeAll()
		waitFor(b, "sessions to end", 10*time.Second, func() bool { return runtime.NumGoroutine() <= g0 })
	}
	per := float64(b.N) * idleSessions
	b.ReportMetric(goroutines/per, "goroutines/session")
	b.ReportMetric(fds/per, "fds/session")
	b.ReportMetric(heap/per, "heap-B/session")
	b.ReportMetric(stack/per, "stack-B/session")
}

// settle waits until the goroutine count stops falling: short-lived workers (dial,
// wake-ups) have finished and what is left is what idle sessions hold.
func settle(b *testing.B, base int) {
	b.Helper()
	last, stable := -1, 0
	waitFor(b, "goroutines to settle", 10*time.Second, func() bool {
		n := runtime.NumGoroutine() - base
		if n == last {
			stable++
		} else {
			last, stable = n, 0
		}
		return stable >= 50
	})
}

func memStats() runtime.MemStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// holdSession logs one player in and returns its socket once the backend's greeting
// arrived through the proxy.
func holdSession(b *testing.B, addr string, pre []byte) net.Conn {
	b.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(pre); err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		b.Fatal(err)
	}
	_ = c.SetDeadline(time.Time{})
	return c
}

// holdBackend reads each connection's preamble, greets it with one byte and keeps the
// socket without a goroutine: an idle backend the goroutine count does not see.
type holdBackend struct {
	addr string
	ln   net.Listener
	done chan struct{}
	mu   sync.Mutex
	held []net.Conn
}

func newHoldBackend(b *testing.B, preambleLen int) *holdBackend {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	h := &holdBackend{addr: ln.Addr().String(), ln: ln, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		buf := make([]byte, preambleLen)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.ReadFull(c, buf); err != nil {
				_ = c.Close()
				continue
			}
			_, _ = c.Write([]byte{1})
			_ = c.SetDeadline(time.Time{})
			h.mu.Lock()
			h.held = append(h.held, c)
			h.mu.Unlock()
		}
	}()
	b.Cleanup(func() {
		_ = ln.Close()
		<-h.done
		h.closeAll()
	})
	return h
}

func (h *holdBackend) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.held {
		_ = c.Close()
	}
	h.held = nil
}
