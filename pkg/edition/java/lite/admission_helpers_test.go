package lite_test

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pires/go-proxyproto"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// newManualClock is the proxy's injected clock for quota refills: it only moves when a
// test moves it, so token counts are exact.
func newManualClock() *mctest.Clock {
	return mctest.NewClock(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
}

// rejections records the reason of every rejected connection and counts closes.
type rejections struct {
	mu      sync.Mutex
	reasons []string
	closed  atomic.Int64
}

func (r *rejections) Observe(e *lite.Event) {
	switch e.Kind {
	case lite.EventRejected:
		r.mu.Lock()
		r.reasons = append(r.reasons, e.Reason)
		r.mu.Unlock()
	case lite.EventClosed:
		r.closed.Add(1)
	}
}

// afterClosed waits until n connections have closed and returns the reasons of the
// rejected ones, in order.
func (r *rejections) afterClosed(t testing.TB, n int64) string {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d connections closed", n), 5*time.Second, func() bool { return r.closed.Load() == n })
	return r.list()
}

func (r *rejections) list() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.reasons, ",")
}

// proxyV1 is a PROXY v1 header claiming the connection comes from src.
func proxyV1(t testing.TB, src string) []byte {
	t.Helper()
	return proxyHeaderFrom(t, 1, src)
}

func proxyHeaderFrom(t testing.TB, version byte, src string) []byte {
	t.Helper()
	ap := netip.MustParseAddrPort(src)
	dst := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(wire.DefaultPort)}
	h := proxyproto.HeaderProxyFromAddrs(version, net.TCPAddrFromAddrPort(ap), dst)
	b, err := h.Format()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dialAs connects through a trusted front that names src as the player.
func dialAs(t testing.TB, addr, src string) *client {
	t.Helper()
	c := dialProxy(t, addr)
	c.send(proxyV1(t, src))
	return c
}

// loginAndLeave logs in (checking the echo) and hangs up.
func loginAndLeave(c *client, host string) {
	c.t.Helper()
	c.login(host)
	_ = c.Close()
}

// admissionSettled waits until the proxy holds no admitted connection and no player.
func admissionSettled(t testing.TB, p *proxy) {
	t.Helper()
	waitFor(t, "admission counts back to zero", 5*time.Second, func() bool {
		st := p.Admission().Stats()
		if st.Open != 0 || st.OpenAddrs != 0 {
			return false
		}
		for _, b := range p.Manager().Snapshot() {
			if b.Active != 0 || b.Unsettled != 0 {
				return false
			}
		}
		return true
	})
}
