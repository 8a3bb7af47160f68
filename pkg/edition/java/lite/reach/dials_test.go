package reach

import (
	"net"
	"testing"
)

// TestDialsRefuseOwnConnections: a connection accepted from the local end of a
// recorded dial is refused and that dial is marked looped; another peer is not; a
// removed dial is forgotten.
func TestDialsRefuseOwnConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var d Dials
	out, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	in, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if d.Refuse(in.RemoteAddr()) {
		t.Fatal("refused before the dial was recorded")
	}
	d.Add(out)
	other, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if d.Refuse(other.LocalAddr()) || d.Looped(out) {
		t.Fatal("an unrelated peer was refused")
	}
	if !d.Refuse(in.RemoteAddr()) || !d.Looped(out) {
		t.Fatal("a connection from our own dial was not refused")
	}
	d.Remove(out)
	if d.Len() != 0 || d.Refuse(in.RemoteAddr()) {
		t.Fatal("a removed dial is still recorded")
	}
}
