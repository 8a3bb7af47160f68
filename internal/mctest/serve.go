package mctest

import (
	"bufio"
	"cmp"
	"errors"
	"io"
	"net"
	"time"

	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// floodChunk is what a flooding backend writes over and over (read-only, shared).
var floodChunk = make([]byte, 64<<10)

// counted counts the bytes of one connection into the backend's totals.
type counted struct {
	c *net.TCPConn
	b *Backend
}

func (c counted) Read(p []byte) (int, error) {
	n, err := c.c.Read(p)
	c.b.bytesIn.Add(int64(n))
	return n, err
}

func (c counted) Write(p []byte) (int, error) {
	n, err := c.c.Write(p)
	c.b.bytesOut.Add(int64(n))
	return n, err
}

// handle runs one connection; the caller closes it.
func (b *Backend) handle(c *net.TCPConn) {
	if b.opts.Script != nil {
		b.opts.Script(c)
		return
	}
	cc := counted{c, b}
	switch b.opts.Fault {
	case FaultAcceptClose:
		return
	case FaultStall:
		<-b.done // Close closes c too
		return
	case FaultHang:
		_, _ = io.Copy(io.Discard, cc)
		return
	case FaultFlood:
		for {
			if _, err := cc.Write(floodChunk); err != nil {
				return
			}
		}
	}
	br := bufio.NewReader(cc)
	rec, rest, err := b.readStart(br)
	if err != nil {
		return
	}
	if b.opts.Fault == FaultResetAfterHandshake {
		_ = c.SetLinger(0)
		return
	}
	if rec.Handshake.Intent == wire.IntentStatus {
		b.statusHS.Store(&rec.Handshake)
		b.serveStatus(cc, br, rest)
		return
	}
	b.serveLogin(c, cc, br, rec, rest)
}

// readStart reads the optional PROXY header and the handshake byte by byte, so nothing
// past the handshake is consumed; rest is empty.
func (b *Backend) readStart(br *bufio.Reader) (Received, []byte, error) {
	var rec Received
	if b.opts.ProxyProtocol {
		h, err := proxyproto.Read(br)
		if err != nil {
			return rec, nil, err
		}
		rec.Proxy = h
	}
	var buf []byte
	for {
		hs, n, err := wire.ParseHandshake(buf)
		if err == nil {
			rec.Handshake, rec.Raw = hs, append([]byte(nil), buf[:n]...)
			return rec, buf[n:], nil
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return rec, nil, err
		}
		bt, err := br.ReadByte()
		if err != nil {
			return rec, nil, err
		}
		buf = append(buf, bt)
	}
}

// serveLogin records the login and echoes the handshake, anything buffered, then the
// stream (or, crashing mid-session, resets when more bytes arrive).
func (b *Backend) serveLogin(c *net.TCPConn, cc counted, br *bufio.Reader, rec Received, rest []byte) {
	b.logins.Add(1)
	if b.dark.Load() {
		_, _ = io.Copy(io.Discard, br)
		return
	}
	if d := b.opts.LoginDelay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-b.done:
			t.Stop()
			return
		}
	}
	if limit := int64(b.opts.Capacity); limit > 0 && b.active.Load() >= limit {
		b.refused.Add(1)
		text := cmp.Or(b.opts.FullText, `{"translate":"multiplayer.disconnect.server_full"}`)
		_, _ = cc.Write(wire.AppendLoginDisconnect(nil, []byte(text)))
		return
	}
	b.active.Add(1)
	defer b.active.Add(-1)
	b.session(c, true)
	defer b.session(c, false)
	select {
	case b.got <- rec:
	default: // the queue is full: counted, not recorded
	}
	buffered, _ := br.Peek(br.Buffered())
	out := append(append(append([]byte(nil), rec.Raw...), rest...), buffered...)
	_, _ = br.Discard(len(buffered))
	if _, err := cc.Write(out); err != nil {
		return
	}
	if b.opts.Fault == FaultCrashMidSession {
		if _, err := br.ReadByte(); err == nil {
			_ = c.SetLinger(0)
		}
		return
	}
	CopyPlain(cc, br, 16<<10)
}

// serveStatus answers Status Requests and the closing Ping.
func (b *Backend) serveStatus(w io.Writer, br *bufio.Reader, buf []byte) {
	for {
		id, payload, n, err := wire.ParseFrame(buf, 64)
		if errors.Is(err, wire.ErrIncomplete) {
			bt, rerr := br.ReadByte()
			if rerr != nil {
				return
			}
			buf = append(buf, bt)
			continue
		}
		if err != nil {
			return
		}
		buf = buf[n:]
		switch id {
		case wire.IDStatusRequest:
			b.statusN.Add(1)
			if b.hang.Load() {
				_, _ = io.Copy(io.Discard, br)
				return
			}
			if _, err := w.Write(wire.AppendStatusResponse(nil, []byte(b.statusBody()))); err != nil {
				return
			}
		case wire.IDPing:
			v, _ := wire.ParsePing(payload)
			_, _ = w.Write(wire.AppendPing(nil, v))
			return
		}
	}
}
