package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// backendStatus is what the fake backend answers pings with.
const backendStatus = `{"version":{"name":"1.21.4","protocol":769},"players":{"max":1000,"online":0},"description":{"text":"soak"}}`

// backend is a fake Minecraft server: it answers status pings and, for logins, echoes
// every byte it receives (the handshake included), like a server in play state that
// talks back.
type backend struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func startBackend() (*backend, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &backend{ln: ln, conns: make(map[net.Conn]struct{})}
	b.wg.Go(b.serve)
	return b, nil
}

func (b *backend) addr() string { return b.ln.Addr().String() }

func (b *backend) serve() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns[c] = struct{}{}
		b.mu.Unlock()
		b.wg.Go(func() {
			defer func() {
				b.mu.Lock()
				delete(b.conns, c)
				b.mu.Unlock()
				_ = c.Close()
			}()
			b.handle(c)
		})
	}
}

func (b *backend) handle(c net.Conn) {
	br := bufio.NewReader(c)
	hs, raw, ok := readHandshake(br)
	if !ok {
		return
	}
	if hs.Intent != wire.IntentStatus {
		if _, err := c.Write(raw); err != nil {
			return
		}
		_, _ = io.Copy(c, br)
		return
	}
	serveStatus(c, br)
}

// readHandshake reads the first frame byte by byte, so nothing after it is consumed
// from the reader's point of view.
func readHandshake(br *bufio.Reader) (wire.Handshake, []byte, bool) {
	var buf []byte
	for {
		hs, _, err := wire.ParseHandshake(buf)
		if err == nil {
			return hs, buf, true
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return hs, nil, false
		}
		bt, err := br.ReadByte()
		if err != nil {
			return hs, nil, false
		}
		buf = append(buf, bt)
	}
}

// serveStatus answers Status Requests and the closing Ping.
func serveStatus(c net.Conn, br *bufio.Reader) {
	var pending []byte
	for {
		id, payload, n, err := wire.ParseFrame(pending, 64)
		if errors.Is(err, wire.ErrIncomplete) {
			bt, rerr := br.ReadByte()
			if rerr != nil {
				return
			}
			pending = append(pending, bt)
			continue
		}
		if err != nil {
			return
		}
		pending = pending[n:]
		switch id {
		case wire.IDStatusRequest:
			if _, err := c.Write(wire.AppendStatusResponse(nil, []byte(backendStatus))); err != nil {
				return
			}
		case wire.IDPing:
			v, _ := wire.ParsePing(payload)
			_, _ = c.Write(wire.AppendPing(nil, v))
			return
		}
	}
}

// close stops the backend and waits for its goroutines.
func (b *backend) close() {
	_ = b.ln.Close()
	b.mu.Lock()
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}
