package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Login behaviours, chosen by the player name in Login Start.
const (
	nameEcho   = "echo"   // echo the preamble, then every byte
	nameSink   = "sink"   // discard everything
	nameSource = "source" // stream bytes to the client until it leaves
	nameIdle   = "idle"   // echo the preamble, then echo with a small buffer
)

// sourceChunk is what a source backend writes over and over (read-only, shared).
var sourceChunk = make([]byte, 128<<10)

func runBackend(ctx context.Context, fs *flag.FlagSet, args []string, errOut io.Writer) error {
	listen := fs.String("listen", "127.0.0.1:25600", "address to listen on")
	motd := fs.String("motd", "mcload backend", "status description")
	if err := fs.Parse(args); err != nil {
		return errors.Join(errUsage, err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("backend: %w", err)
	}
	fmt.Fprintf(errOut, "mcload backend listening on %s\n", ln.Addr())
	return newBackend(*motd).serve(ctx, ln)
}

// backend is the load tool's fake Minecraft server. It is not mctest.Backend on purpose:
// its login modes are chosen per connection by the player name, it parses with the
// frameReader its clients use (one buffer per connection, no byte-at-a-time reads),
// and its echo has no counters, so a storm or throughput run measures the proxy, not
// the backend. The status body is mctest's. Every connection has one goroutine, owned by
// serve, which waits for all of them before it returns.
type backend struct {
	statusFrame []byte
	wg          sync.WaitGroup
	mu          sync.Mutex
	conns       map[net.Conn]struct{}
}

func newBackend(motd string) *backend {
	js := mctest.StatusJSON(motd, 0, 1000)
	return &backend{statusFrame: wire.AppendStatusResponse(nil, []byte(js)), conns: map[net.Conn]struct{}{}}
}

// serve accepts until ctx ends, then closes every connection and waits for them.
func (b *backend) serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	var err error
	for {
		c, aerr := ln.Accept()
		if aerr != nil {
			if ctx.Err() == nil && !errors.Is(aerr, net.ErrClosed) {
				if isTemporary(aerr) {
					time.Sleep(10 * time.Millisecond) // descriptor pressure: let conns close
					continue
				}
				err = fmt.Errorf("accept: %w", aerr)
			}
			break
		}
		b.track(c, true)
		b.wg.Go(func() {
			defer b.track(c, false)
			defer c.Close()
			b.handle(c)
		})
	}
	b.mu.Lock()
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
	return err
}

func (b *backend) track(c net.Conn, add bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if add {
		b.conns[c] = struct{}{}
	} else {
		delete(b.conns, c)
	}
}

func (b *backend) handle(c net.Conn) {
	r := &frameReader{c: c, buf: make([]byte, 0, 1024)}
	hs, err := r.handshake()
	if err != nil {
		return
	}
	if hs.Intent == wire.IntentStatus {
		b.serveStatus(c, r)
		return
	}
	_, payload, err := r.frame(wire.MaxHandshakeLen)
	if err != nil {
		return
	}
	name, _, err := wire.ParseString(payload, 64)
	if err != nil {
		return
	}
	// r.buf is the handshake and Login Start as received, plus whatever followed.
	switch name {
	case nameSink:
		_, _ = io.Copy(io.Discard, c)
	case nameSource:
		for {
			if _, err := c.Write(sourceChunk); err != nil {
				return
			}
		}
	case nameIdle:
		echo(c, r.buf, 256)
	default:
		echo(c, r.buf, 16<<10)
	}
}

// echo writes back what was read so far, then every byte that follows, through a
// buffer of size bytes.
func echo(c net.Conn, read []byte, size int) {
	if _, err := c.Write(read); err != nil {
		return
	}
	mctest.CopyPlain(c, c, size)
}

// serveStatus answers one Status Request and one Ping, then returns (the caller closes).
func (b *backend) serveStatus(c net.Conn, r *frameReader) {
	for {
		id, payload, err := r.frame(64)
		if err != nil {
			return
		}
		switch id {
		case wire.IDStatusRequest:
			if _, err := c.Write(b.statusFrame); err != nil {
				return
			}
		case wire.IDPing:
			v, err := wire.ParsePing(payload)
			if err == nil {
				_, _ = c.Write(wire.AppendPing(nil, v))
			}
			return
		default:
			return
		}
	}
}

func isTemporary(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errTooManyFiles)
}
