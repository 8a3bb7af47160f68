package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// dialer opens client connections to the proxy, as the trusted front (127.0.0.1) or
// as an untrusted peer (127.0.0.2).
type dialer struct {
	target string
}

// dial connects from local; src, when valid, is announced in a PROXY v2 header.
func (d dialer) dial(local string, src netip.AddrPort, timeout time.Duration) (net.Conn, error) {
	nd := net.Dialer{Timeout: timeout, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Control: noPortBind}
	c, err := nd.Dial("tcp", d.target)
	if err != nil {
		return nil, fmt.Errorf("dial %s from %s: %w", d.target, local, err)
	}
	_ = c.SetDeadline(time.Now().Add(timeout))
	if !src.IsValid() {
		return c, nil
	}
	hdr, err := proxyHeader(src)
	if err == nil {
		_, err = c.Write(hdr)
	}
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("proxy header: %w", err)
	}
	return c, nil
}

func proxyHeader(src netip.AddrPort) ([]byte, error) {
	dst := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 25565}
	return proxyproto.HeaderProxyFromAddrs(2, net.TCPAddrFromAddrPort(src), dst).Format()
}

func handshake(host string, intent int32) []byte {
	return wire.AppendHandshake(nil, wire.Handshake{Protocol: 769, Address: host, Port: 25565, Intent: intent})
}

func loginStart(name string) []byte {
	payload := wire.AppendString(nil, name)
	payload = append(payload, bytes.Repeat([]byte{0x5A}, 16)...)
	return wire.AppendFrame(nil, 0x00, payload)
}

// readFrame reads one frame of at most max bytes.
func readFrame(br *bufio.Reader, max int) (int32, []byte, error) {
	var buf []byte
	for {
		id, payload, _, err := wire.ParseFrame(buf, max)
		if err == nil {
			return id, payload, nil
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return 0, nil, err
		}
		b, err := br.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		buf = append(buf, b)
	}
}

// ping does a full status exchange as a real client would.
func ping(c net.Conn, host string) error {
	if _, err := c.Write(append(handshake(host, wire.IntentStatus), wire.AppendStatusRequest(nil)...)); err != nil {
		return fmt.Errorf("write status request: %w", err)
	}
	br := bufio.NewReader(c)
	id, payload, err := readFrame(br, wire.MaxStatusResponseLen)
	if err != nil {
		return fmt.Errorf("read status response: %w", err)
	}
	if _, err := wire.ParseStatusResponse(payload); err != nil || id != 0 {
		return fmt.Errorf("status response id %d: %v", id, err)
	}
	if _, err := c.Write(wire.AppendPing(nil, 42)); err != nil {
		return fmt.Errorf("write ping: %w", err)
	}
	if id, payload, err = readFrame(br, 64); err != nil || id != wire.IDPing {
		return fmt.Errorf("read pong: id %d: %v", id, err)
	}
	if v, _ := wire.ParsePing(payload); v != 42 {
		return fmt.Errorf("pong %d, want 42", v)
	}
	return nil
}

// login logs in, exchanges a little play traffic with the echoing backend and leaves.
func login(c net.Conn, host, name string, chat []byte) error {
	out := append(handshake(host, wire.IntentLogin), loginStart(name)...)
	out = append(out, chat...)
	if _, err := c.Write(out); err != nil {
		return fmt.Errorf("write login: %w", err)
	}
	br := bufio.NewReader(c)
	// A refused login gets a Login Disconnect, a frame with id 0 like the echoed
	// handshake: peek at the first frame to tell which.
	_, payload, err := readFrame(br, 1<<16)
	if err != nil {
		return fmt.Errorf("read echo: %w", err)
	}
	if text, _, err := wire.ParseString(payload, 1<<16); err == nil && strings.HasPrefix(text, "{") {
		return fmt.Errorf("disconnected: %s", text)
	}
	hs := handshake(host, wire.IntentLogin)
	rest := make([]byte, len(out)-len(hs))
	if _, err := io.ReadFull(br, rest); err != nil {
		return fmt.Errorf("read echo: %w", err)
	}
	if !bytes.Equal(rest, out[len(hs):]) {
		return errors.New("echo differs from what was sent")
	}
	return nil
}
