package lite_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Embedding the proxy in a Go program: build it from a config, observe every
// session event, serve on a listener of your own, stop it with a context.
func Example_embedding() {
	cfg, _, err := config.Parse([]byte(`
config:
  lite:
    enabled: true
    routes:
      - host: play.example.com
        backend: `+deadBackend()+`
        fallback:
          motd: Back soon
`), "embedded.yml")
	if err != nil {
		fmt.Println(err)
		return
	}
	closed := make(chan struct{})
	p, err := lite.New(cfg, lite.Options{Observer: printEvents(closed)})
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()

	if err := statusPing(ln.Addr().String(), "play.example.com"); err != nil {
		fmt.Println(err)
		return
	}
	<-closed
	stop()
	fmt.Println("serve:", <-served)
	// Output:
	// accepted
	// routed play.example.com
	// status play.example.com fallback
	// closed play.example.com
	// serve: <nil>
}

// deadBackend is an address nothing listens on, so the route's fallback answers the
// ping.
func deadBackend() string {
	dead, _ := net.Listen("tcp", "127.0.0.1:0")
	defer dead.Close()
	return dead.Addr().String()
}

// printEvents prints each session event's kind and the fields it has, and closes
// closed when a connection has closed. Observe runs on the connection's goroutine:
// keep it quick.
func printEvents(closed chan<- struct{}) lite.Observer {
	return lite.ObserverFunc(func(e *lite.Event) {
		fields := []string{e.Kind.String()}
		for _, f := range []string{e.Route, e.Source, e.Reason} {
			if f != "" {
				fields = append(fields, f)
			}
		}
		fmt.Println(strings.Join(fields, " "))
		if e.Kind == lite.EventClosed {
			close(closed)
		}
	})
}

// statusPing sends a server-list ping for host to addr, as a Minecraft client sends
// it, and reads the answer until the proxy closes the connection.
func statusPing(addr, host string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	req := wire.AppendHandshake(nil, wire.Handshake{Protocol: 764, Address: host, Port: 25565, Intent: wire.IntentStatus})
	req = wire.AppendStatusRequest(req)
	req = wire.AppendPing(req, 1)
	_, _ = c.Write(req)
	_, _ = io.ReadAll(c) // the status response and the pong, then the proxy closes
	return nil
}
