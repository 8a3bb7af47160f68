package mctest_test

import (
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

func TestForwarderCutsAndRestores(t *testing.T) {
	b := mctest.NewBackend(t, mctest.Options{Status: mctest.StatusJSON("behind", 1, 10)})
	f := mctest.NewForwarder(t, "tcp", b.Addr())
	if _, err := mctest.Ping(f.Addr(), 765, "a.example.com"); err != nil {
		t.Fatalf("ping through the forwarder: %v", err)
	}
	held := mctest.Dial(t, f.Addr())
	f.Cut()
	_ = held.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := held.R.ReadByte(); err == nil {
		t.Fatal("a connection relayed before the cut still reads")
	}
	if _, err := mctest.Ping(f.Addr(), 765, "a.example.com"); err == nil || f.Refused() == 0 {
		t.Fatalf("ping while cut: %v, refused %d", err, f.Refused())
	}
	f.Restore()
	if _, err := mctest.Ping(f.Addr(), 765, "a.example.com"); err != nil {
		t.Fatalf("ping after restore: %v", err)
	}
}
