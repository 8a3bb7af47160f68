package enginetest

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// ServeDiscovered serves l on a loopback listener with src feeding a merger of
// cfg's file routes into it, as the program wires them, until the test ends. It
// returns the merger and the players' address once l is ready.
func ServeDiscovered(t testing.TB, cfg *config.Config, l *lite.Lite, src discovery.Source, log logr.Logger) (*discovery.Merger, string) {
	t.Helper()
	m := discovery.NewMerger(discovery.MergerOptions{Apply: l.Reload, Log: log.WithName("discovery")})
	if err := m.SetFile(cfg); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mctest.Run(t, "proxy", func(ctx context.Context) error {
		if err := l.Serve(ctx, ln); !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	})
	mctest.Run(t, "source", func(ctx context.Context) error { return src.Run(ctx, m) })
	mctest.WaitFor(t, "proxy ready", 5*time.Second, l.Ready)
	return m, ln.Addr().String()
}
