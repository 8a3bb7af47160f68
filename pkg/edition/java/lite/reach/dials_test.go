//go:build unix

package reach

import (
	"net"
	"syscall"
	"testing"
)

// listen is a loopback listener whose Accept the test calls itself.
func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln
}

// dialFrom connects to ln from local ("" for any port) and returns both ends.
func dialFrom(t *testing.T, ln net.Listener, local string) (out, in net.Conn) {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1) })
		if err != nil {
			return err
		}
		return serr
	}}
	if local != "" {
		a, err := net.ResolveTCPAddr("tcp", local)
		if err != nil {
			t.Fatal(err)
		}
		d.LocalAddr = a
	}
	out, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = out.Close() })
	in, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close() })
	return out, in
}

// TestDialsRefuseOwnConnections: a connection accepted from the local end of a
// recorded dial is refused and that dial is marked looped; another peer is not; a
// removed dial is forgotten.
func TestDialsRefuseOwnConnections(t *testing.T) {
	proxy := listen(t)
	d := NewDials(NewLocalAddrs(nil))
	out, in := dialFrom(t, proxy, "")
	if d.Refuse(in) {
		t.Fatal("refused before the dial was recorded")
	}
	d.Add(out)
	_, other := dialFrom(t, proxy, "")
	if d.Refuse(other) || d.Looped(out) {
		t.Fatal("an unrelated peer was refused")
	}
	if !d.Refuse(in) || !d.Looped(out) {
		t.Fatal("a connection from our own dial was not refused")
	}
	d.Remove(out)
	if d.Len() != 0 || d.Refuse(in) {
		t.Fatal("a removed dial is still recorded")
	}
}

// TestDialsTellSharedLocalPortsApart: the kernel may give a backend dial and a local
// client of the proxy the same local address (they go to different destinations);
// the client is not the proxy's own dial and is not refused.
func TestDialsTellSharedLocalPortsApart(t *testing.T) {
	backend, proxy := listen(t), listen(t)
	d := NewDials(NewLocalAddrs(nil))
	out, _ := dialFrom(t, backend, "127.0.0.1:0")
	d.Add(out)
	client, in := dialFrom(t, proxy, out.LocalAddr().String())
	if client.LocalAddr().String() != out.LocalAddr().String() {
		t.Fatalf("setup: client from %s, dial from %s", client.LocalAddr(), out.LocalAddr())
	}
	if d.Refuse(in) || d.Looped(out) {
		t.Fatal("a local client sharing a backend dial's local address was refused")
	}
}
