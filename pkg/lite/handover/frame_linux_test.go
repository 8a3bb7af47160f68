//go:build linux

package handover

import (
	"encoding/binary"
	"errors"
	"syscall"
	"testing"
)

// pair is both ends of a hand-over socket in this process.
func pair(t *testing.T) (a, b *conn) {
	t.Helper()
	a, f, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(f.Fd()))
	_ = f.Close()
	if err == nil {
		b, err = unixConn(fd, "peer")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.close(); _ = b.close() })
	return a, b
}

// TestFramesRefuseAHostilePeer: a frame over its bounds, or one that names more
// descriptors than came with it, is refused, and no descriptor that did come stays open.
func TestFramesRefuseAHostilePeer(t *testing.T) {
	header := func(typ, nfds byte, size uint32) []byte {
		h := []byte{typ, nfds, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(h[2:], size)
		return h
	}
	tests := []struct {
		name string
		msg  []byte
		fds  int
	}{
		{"payload over the bound", header(frameSession, 0, maxFrame+1), 0},
		{"too many descriptors named", header(frameSession, maxFDs+1, 0), 0},
		{"descriptors named that never came", header(frameSession, 2, 0), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := pair(t)
			var oob []byte
			if tt.fds > 0 {
				fd, err := syscall.Dup(0)
				if err != nil {
					t.Fatal(err)
				}
				defer syscall.Close(fd)
				oob = syscall.UnixRights(fd)
			}
			if _, _, err := a.c.WriteMsgUnix(tt.msg, oob, nil); err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := b.recv(ReadyTimeout); !errors.Is(err, ErrMalformed) {
				t.Fatalf("recv: %v, want ErrMalformed", err)
			}
			if len(b.fds) != 0 {
				t.Fatalf("%d received descriptors left open", len(b.fds))
			}
		})
	}
}

// TestFramesCarryDescriptorsAcrossPartialReads: a long frame that the socket splits
// still arrives whole, with its descriptors.
func TestFramesCarryDescriptorsAcrossPartialReads(t *testing.T) {
	a, b := pair(t)
	payload := make([]byte, 3<<20/2)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	done := make(chan error, 1)
	go func() { done <- a.send(frameSession, payload, 0, 1) }()
	typ, got, fds, err := b.recv(ReadyTimeout)
	if err != nil || <-done != nil {
		t.Fatal(err)
	}
	defer closeAll(fds)
	if typ != frameSession || len(fds) != 2 || string(got) != string(payload) {
		t.Fatalf("got type %d, %d descriptors, %d bytes", typ, len(fds), len(got))
	}
}
