package mctest

import (
	"io"
	"net"
	"sync"
)

// ScriptBackend is a backend whose every connection runs a test's script: after
// reading the preamble the test's client sends through the proxy (the replayed
// handshake and Login Start), it hands the raw connection to the script, so a test
// can make a backend stall, chatter or hang up exactly when it needs to.
type ScriptBackend struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	conn []net.Conn
}

// NewScriptBackend listens on a loopback port and runs script on each connection
// once preambleLen bytes have arrived. It is closed when the test ends.
func NewScriptBackend(t TB, preambleLen int, script func(c *net.TCPConn)) *ScriptBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	b := &ScriptBackend{ln: ln}
	b.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conn = append(b.conn, c)
			b.mu.Unlock()
			b.wg.Go(func() {
				defer c.Close()
				if _, err := io.ReadFull(c, make([]byte, preambleLen)); err != nil {
					return
				}
				script(c.(*net.TCPConn))
			})
		}
	})
	t.Cleanup(b.Close)
	return b
}

// Addr is the backend's "host:port".
func (b *ScriptBackend) Addr() string { return b.ln.Addr().String() }

// Close stops accepting, closes every connection and waits for the scripts.
func (b *ScriptBackend) Close() {
	_ = b.ln.Close()
	b.mu.Lock()
	for _, c := range b.conn {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}
