package handover

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// Version is the wire version both processes must speak. A change of any frame or
// of Session's encoding bumps it.
const Version byte = 1

// Bounds on what a peer may send. A relay holds at most a pipe's worth (1 MiB) and a
// packet buffer per direction, so MaxHeld leaves room and no more.
const (
	// MaxHeld is the most held bytes per direction a Session carries.
	MaxHeld = 2 << 20
	// maxText bounds every string (addresses, route keys, host names, a player name).
	maxText = 1024
	// maxFrame bounds a frame's payload: a Session with both directions full.
	maxFrame = 2*MaxHeld + 16<<10
)

// ErrMalformed is a frame or a Session this version cannot read.
var ErrMalformed = errors.New("handover: malformed message")

// Session is one established session as it moves: its sockets (ClientFD and
// BackendFD, owned by whoever holds the Session) and everything the new process
// needs to go on where the old one stopped.
type Session struct {
	ClientFD, BackendFD int
	// Client is the player's address as the proxy knows it (a trusted PROXY header's,
	// else the socket's peer).
	Client string
	// Route, Backend and BackendTemplate place the session; VHost, Protocol and Intent
	// are from its handshake.
	Route, Backend, BackendTemplate, VHost string
	Protocol, Intent                       int32
	// Player and UUID are who the Login Start named (empty when it named no one).
	Player string
	UUID   [16]byte
	// Start is when the connection was accepted; Up and Down the bytes moved so far
	// (player to backend, and back).
	Start    time.Time
	Up, Down int64
	// HeldUp and HeldDown are bytes the old relay read but did not write: the new one
	// writes them first.
	HeldUp, HeldDown []byte
	// HoldsWake: the session keeps its route's wake target awake. LogEnd: it writes
	// the sampled line at its end.
	HoldsWake, LogEnd bool
}

const (
	flagHoldsWake byte = 1 << iota
	flagLogEnd
)

// AppendSession appends s's encoding (without descriptors) to b.
func AppendSession(b []byte, s *Session) []byte {
	b = append(b, Version)
	for _, t := range []string{s.Client, s.Route, s.Backend, s.BackendTemplate, s.VHost, s.Player} {
		b = appendBytes(b, []byte(t))
	}
	b = append(b, s.UUID[:]...)
	for _, v := range []int64{int64(s.Protocol), int64(s.Intent), s.Start.UnixNano(), s.Up, s.Down} {
		b = binary.AppendVarint(b, v)
	}
	var flags byte
	if s.HoldsWake {
		flags |= flagHoldsWake
	}
	if s.LogEnd {
		flags |= flagLogEnd
	}
	b = append(b, flags)
	b = appendBytes(b, s.HeldUp)
	return appendBytes(b, s.HeldDown)
}

// ParseSession reads what AppendSession wrote. The held bytes are copies; the
// descriptors are not part of the encoding.
func ParseSession(b []byte) (Session, error) {
	var s Session
	r := reader{b: b}
	if v := r.byte(); v != Version {
		return s, fmt.Errorf("%w: session version %d, want %d", ErrMalformed, v, Version)
	}
	for _, t := range []*string{&s.Client, &s.Route, &s.Backend, &s.BackendTemplate, &s.VHost, &s.Player} {
		*t = string(r.bytes(maxText))
	}
	copy(s.UUID[:], r.take(16))
	var nums [5]int64
	for i := range nums {
		nums[i] = r.varint()
	}
	s.Start, s.Up, s.Down = time.Unix(0, nums[2]), nums[3], nums[4]
	flags := r.byte()
	s.HoldsWake, s.LogEnd = flags&flagHoldsWake != 0, flags&flagLogEnd != 0
	s.HeldUp = append([]byte(nil), r.bytes(MaxHeld)...)
	s.HeldDown = append([]byte(nil), r.bytes(MaxHeld)...)
	if r.err == nil && (nums[0] != int64(int32(nums[0])) || nums[1] != int64(int32(nums[1])) || nums[3] < 0 || nums[4] < 0) {
		r.err = fmt.Errorf("%w: counts out of range", ErrMalformed)
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(r.b))
	}
	s.Protocol, s.Intent = int32(nums[0]), int32(nums[1])
	return s, r.err
}

func appendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

// reader takes fields off b; the first failure sticks and every later read is empty.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrMalformed, what)
	}
	r.b = nil
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.fail("truncated")
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

// bytes reads a length-prefixed field of at most limit bytes.
func (r *reader) bytes(limit int) []byte {
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(limit) {
		r.fail("length out of bounds")
		return nil
	}
	r.b = r.b[k:]
	return r.take(int(n))
}

func (r *reader) varint() int64 {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[k:]
	return v
}

// Conns makes connections of the session's descriptors, which they take over
// (closed on failure too).
func (s *Session) Conns() (client, backend net.Conn, err error) {
	if client, err = fdConn(s.ClientFD); err != nil {
		_ = os.NewFile(uintptr(s.BackendFD), "").Close()
		return nil, nil, err
	}
	if backend, err = fdConn(s.BackendFD); err != nil {
		_ = client.Close()
	}
	return client, backend, err
}

// Close closes the session's descriptors (once the new process took it).
func (s *Session) Close() {
	_ = os.NewFile(uintptr(s.ClientFD), "").Close()
	_ = os.NewFile(uintptr(s.BackendFD), "").Close()
}

func fdConn(fd int) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), "session")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("session socket: %w", err)
	}
	return c, nil
}
