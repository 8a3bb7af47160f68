package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// soakConfig is the in-process proxy: Gate's default quotas, short deadlines so that
// abusive connections turn over quickly, 127.0.0.1 as the only trusted front.
const soakConfig = `
config:
  proxyProtocol: true
  proxyProtocolTrustedProxies: [127.0.0.1]
  readTimeout: 2s
  connectionTimeout: 1s
  quota:
    firstByteTimeout: 500ms
  lite:
    enabled: true
    shutdownGrace: 0s
    routes:
      - host: play.example.com
        backend: {{backend}}
        cachePingTTL: 1s
`

// harness is a backend and a proxy running in this process.
type harness struct {
	backend *mctest.Backend
	proxy   *lite.Lite
	addr    string
	stop    context.CancelFunc
	done    chan error
}

func startHarness() (*harness, error) {
	b, err := mctest.Start(mctest.Options{Status: mctest.StatusJSON("soak", 0, 1000)})
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	cfg, _, err := config.Parse([]byte(strings.ReplaceAll(soakConfig, "{{backend}}", b.Addr())), "soak.yml")
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("config: %w", err)
	}
	p, err := lite.New(cfg, lite.Options{Seed: 1})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("proxy: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{backend: b, proxy: p, addr: ln.Addr().String(), stop: cancel, done: make(chan error, 1)}
	go func() { h.done <- p.Serve(ctx, ln) }()
	return h, nil
}

// drain waits until the proxy holds no connection and no player.
func (h *harness) drain(within time.Duration) error {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		st := h.proxy.Admission().Stats()
		active := int64(0)
		for _, b := range h.proxy.Manager().Snapshot() {
			active += b.Active
		}
		if st.Open == 0 && st.OpenAddrs == 0 && active == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w after %v: %d connections, %d players", errNotDrained, within, st.Open, active)
		}
		<-tick.C
	}
}

func (h *harness) close() {
	h.stop()
	<-h.done
	h.backend.Close()
}
