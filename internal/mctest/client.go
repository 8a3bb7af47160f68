package mctest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Handshake is a handshake frame for host (port 25565) with the given intent.
func Handshake(protocol int32, host string, intent int32) []byte {
	return wire.AppendHandshake(nil, wire.Handshake{Protocol: protocol, Address: host, Port: wire.DefaultPort, Intent: intent})
}

// LoginStart is a 1.20.2+ Login Start frame: the name and a fixed UUID.
func LoginStart(name string) []byte {
	payload := wire.AppendString(nil, name)
	payload = append(payload, bytes.Repeat([]byte{0xAB}, 16)...)
	return wire.AppendFrame(nil, 0x00, payload)
}

// LoginPreamble is a handshake for host with the login intent followed by a Login
// Start, as a client sends them in one segment.
func LoginPreamble(protocol int32, host, name string) []byte {
	return append(Handshake(protocol, host, wire.IntentLogin), LoginStart(name)...)
}

// Client is a raw Minecraft client connection; R buffers its reads.
type Client struct {
	net.Conn
	R *bufio.Reader
}

// NewClient wraps an open connection.
func NewClient(c net.Conn) *Client { return &Client{Conn: c, R: bufio.NewReader(c)} }

// Dial connects to addr within 5s, sets a 10s deadline on the whole exchange and
// closes the connection when the test ends.
func Dial(t TB, addr string) *Client {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { _ = c.Close() })
	return NewClient(c)
}

// ReadFrame reads one frame (up to 1 MiB of payload).
func (c *Client) ReadFrame() (id int32, payload []byte, err error) {
	var buf []byte
	for {
		id, payload, _, err := wire.ParseFrame(buf, 1<<20)
		if err == nil {
			return id, payload, nil
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return 0, nil, err
		}
		bt, err := c.R.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		buf = append(buf, bt)
	}
}

// Disconnect reads a Login Disconnect and returns its JSON text.
func (c *Client) Disconnect() (string, error) {
	id, payload, err := c.ReadFrame()
	if err != nil {
		return "", fmt.Errorf("read disconnect: %w", err)
	}
	if id != wire.IDLoginDisconnect {
		return "", fmt.Errorf("got frame id %d, want login disconnect", id)
	}
	s, _, err := wire.ParseString(payload, 1<<16)
	if err != nil {
		return "", fmt.Errorf("disconnect payload: %w", err)
	}
	return s, nil
}

// Status does a full status exchange with host written into the handshake (the
// virtual host, whatever address was dialled): request, response, ping, pong. It
// returns the response JSON.
func (c *Client) Status(protocol int32, host string) (string, error) {
	out := append(Handshake(protocol, host, wire.IntentStatus), wire.AppendStatusRequest(nil)...)
	if _, err := c.Write(out); err != nil {
		return "", err
	}
	id, payload, err := c.ReadFrame()
	if err != nil {
		return "", err
	}
	if id != 0 {
		return "", fmt.Errorf("status response id %d", id)
	}
	body, err := wire.ParseStatusResponse(payload)
	if err != nil {
		return "", err
	}
	if _, err := c.Write(wire.AppendPing(nil, 12345)); err != nil {
		return "", err
	}
	id, payload, err = c.ReadFrame()
	if err != nil {
		return "", fmt.Errorf("pong: %w", err)
	}
	if v, _ := wire.ParsePing(payload); id != wire.IDPing || v != 12345 {
		return "", fmt.Errorf("bad pong id=%d", id)
	}
	return string(body), nil
}

// Ping dials addr, runs Status for host and closes the connection.
func Ping(addr string, protocol int32, host string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return NewClient(c).Status(protocol, host)
}
