package conntrack

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

func TestCloseAllClosesWhatIsStillOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var tr Tracker
	kept, err := tr.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	closed, err := tr.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	tr.mu.Lock()
	n := len(tr.open)
	tr.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d connections tracked after one was closed, want 1", n)
	}
	tr.CloseAll()
	_ = kept.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := kept.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read on a connection CloseAll closed: %v", err)
	}
}
