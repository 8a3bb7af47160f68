package admin

import (
	"net"
	"testing"
	"time"
)

// The API holds at most lite.AdminConns connections open: one more waits in the
// listen backlog (it is not accepted, so it takes no descriptor) until one closes.
func TestServeHoldsAtMostAdminConnsOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lim := limitConns(ln, 2)
	defer lim.Close()
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := lim.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, second := <-accepted, <-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted while two were open")
	case <-time.After(200 * time.Millisecond): // nothing must happen: a bounded look
	}
	_ = first.Close()
	_ = first.Close() // a second Close gives back nothing more
	select {
	case c := <-accepted:
		_ = c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("the third connection was not accepted after one closed")
	}
	_ = second.Close()
	_ = lim.Close()
	for range accepted { // the loop's last Accept held a slot until the close
	}
	if got := len(lim.slots); got != 0 {
		t.Fatalf("%d slots held after every connection closed", got)
	}
}
