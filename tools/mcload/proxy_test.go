package main

import (
	"context"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// Players through the real proxy, logging in at once from many loopback
// sources: each is a login of its own (its own UUID), so the proxy never takes
// one for another of its logins coming back to it (a loop) and refuses it.
// With one UUID for every player, 20-35 of 50 were refused that way.
func TestActivePlayersThroughTheProxyAllJoin(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the active workload needs Linux (epoll)")
	}
	backend := startBackend(t)
	cfg, _, err := config.Parse([]byte(`
config:
  lite:
    enabled: true
    routes:
      - host: '*'
        backend: `+backend+`
`), "mcload.yml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := lite.New(cfg, lite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-served
	})
	tgt := testTarget(ln.Addr().String(), os.Getpid())
	tgt.spread(32)
	o := activeOptions{players: 50, size: 64, conc: 32, drivers: 2, rate: 20,
		warm: 100 * time.Millisecond, dur: 300 * time.Millisecond, grace: 5 * time.Second, seed: 5}
	res, err := active(context.Background(), tgt, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 0 || res.Delivered != res.Sent || res.Mismatched != 0 {
		t.Fatalf("through the proxy: %d errors (first %q), %d of %d frames delivered, %d mismatched",
			res.Errors, res.FirstError, res.Delivered, res.Sent, res.Mismatched)
	}
}
