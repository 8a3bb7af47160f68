package transfer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// ErrUnsupported: the client's protocol version has no Transfer packet, or is
// one the generated table does not know.
var ErrUnsupported = errors.New("transfer: client protocol version has no known Transfer packet")

// maxFrame caps a frame the client sends before it is transferred. The largest
// it may send is a configuration plugin message (brand), far below this.
const maxFrame = 32 << 10

// maxDrain caps what is read from a client after its Transfer, while waiting
// for it to hang up.
const maxDrain = 64 << 10

// Target is where a player is sent.
type Target struct {
	Host string
	Port uint16
}

// Redirect finishes the login whose Login Start begins pending (the bytes the
// session read past the handshake) and sends the client to to. Each wait for
// the client is bounded by timeout. ErrUnsupported means nothing was written.
func Redirect(c net.Conn, protocol int32, pending []byte, to Target, timeout time.Duration) error {
	cv, err := Login(c, protocol, pending, timeout)
	if err != nil {
		return err
	}
	return cv.Transfer(to)
}

// Conv is a client the proxy logged in itself, in the configuration state.
type Conv struct {
	c       net.Conn
	ids     wire.TransferIDs
	buf     []byte // bytes read from the client; buf[:used] is the last frame returned
	used    int
	timeout time.Duration
}

// Login answers the Login Start at the start of pending with Login Success and
// waits for the client's Login Acknowledged: the client is then in the
// configuration state.
func Login(c net.Conn, protocol int32, pending []byte, timeout time.Duration) (*Conv, error) {
	ids, ok := wire.LookupTransfer(protocol)
	if !ok {
		return nil, ErrUnsupported
	}
	ls, n, err := wire.ParseLoginStart(pending, protocol)
	if err != nil {
		return nil, fmt.Errorf("transfer: %w", err)
	}
	cv := &Conv{c: c, ids: ids, buf: append(make([]byte, 0, 512), pending[n:]...), timeout: timeout}
	if err := cv.write(ids.AppendLoginSuccess(nil, ls.UUID, ls.Name)); err != nil {
		return nil, err
	}
	id, payload, err := cv.readFrame(time.Now().Add(timeout))
	switch {
	case err != nil:
		return nil, fmt.Errorf("transfer: wait for login acknowledged: %w", err)
	case id != ids.LoginAcknowledged || len(payload) != 0:
		return nil, fmt.Errorf("transfer: %w: packet 0x%02x (%d bytes) in the login state, want login acknowledged",
			wire.ErrMalformed, id, len(payload))
	}
	return cv, nil
}

// Transfer sends the Transfer and waits (bounded) for the client to hang up: a
// socket closed with unread bytes would be reset, and a reset may lose the
// Transfer on its way.
func (cv *Conv) Transfer(to Target) error {
	if err := cv.write(cv.ids.AppendTransfer(nil, to.Host, to.Port)); err != nil {
		return err
	}
	_ = cv.c.SetReadDeadline(time.Now().Add(cv.timeout))
	scratch := make([]byte, 4096)
	for read := 0; read < maxDrain; {
		n, err := cv.c.Read(scratch)
		read += n
		if err != nil {
			break // hung up, or lingered past the deadline: either way it has the Transfer
		}
	}
	return nil
}

func (cv *Conv) write(frame []byte) error {
	_ = cv.c.SetWriteDeadline(time.Now().Add(cv.timeout))
	if _, err := cv.c.Write(frame); err != nil {
		return fmt.Errorf("transfer: write: %w", err)
	}
	return nil
}

// readFrame reads one whole frame of at most maxFrame bytes by deadline.
func (cv *Conv) readFrame(deadline time.Time) (int32, []byte, error) {
	_ = cv.c.SetReadDeadline(deadline)
	cv.buf, cv.used = cv.buf[:copy(cv.buf, cv.buf[cv.used:])], 0
	for {
		id, payload, n, err := wire.ParseFrame(cv.buf, maxFrame)
		if err == nil {
			cv.used = n // payload stays valid until the next read
			return id, payload, nil
		}
		if err != wire.ErrIncomplete {
			return 0, nil, err
		}
		if len(cv.buf) == cap(cv.buf) {
			cv.buf = append(cv.buf, make([]byte, cap(cv.buf))...)[:len(cv.buf)]
		}
		k, rerr := cv.c.Read(cv.buf[len(cv.buf):cap(cv.buf)])
		cv.buf = cv.buf[:len(cv.buf)+k]
		if rerr != nil && k == 0 {
			return 0, nil, rerr
		}
	}
}

// Disconnect is the Login Disconnect for a client that cannot be transferred:
// it names addr, the address to connect to instead.
func Disconnect(addr string) []byte {
	text, _ := json.Marshal(map[string]string{"text": "This server has moved to " + addr + ". Please connect there."})
	return wire.AppendLoginDisconnect(nil, text)
}
