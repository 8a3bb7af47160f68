package mctest

import (
	"fmt"
	"net"
)

// Listen listens on a free loopback port until the test ends.
func Listen(t TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln
}

// RefusedAddr returns a loopback address nobody listens on: a port that was just
// listened on and closed, so a dial is refused.
func RefusedAddr(t TB) string {
	t.Helper()
	addr, err := refusedAddr()
	if err != nil {
		t.Fatalf("refused address: %v", err)
	}
	return addr
}

func refusedAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", err
	}
	return addr, nil
}

// BlackholeAddr returns a loopback address whose SYNs are dropped, so a dial to it
// times out instead of being refused. It stays black until the test ends.
func BlackholeAddr(t TB) string {
	t.Helper()
	addr, closeFn, err := blackhole()
	if err != nil {
		t.Fatalf("black hole: %v", err)
	}
	t.Cleanup(closeFn)
	return addr
}

// errQueueNotFull means every probe dial was accepted by the kernel.
var errQueueNotFull = fmt.Errorf("could not fill the accept queue")
