// Package conntrack remembers the connections an HTTP client dialed, so that
// its owner can close every one of them when it stops: client-go's HTTP/2
// connections hold goroutines that CloseIdleConnections does not reach.
package conntrack

import (
	"context"
	"net"
	"sync"
	"time"
)

// Tracker dials TCP and remembers each open connection until it is closed.
// The zero value is ready to use; it is safe for concurrent use.
type Tracker struct {
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

// DialContext dials like a net.Dialer with client-go's timeouts, for
// rest.Config.Dial.
func (t *Tracker) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.open == nil {
		t.open = make(map[net.Conn]struct{})
	}
	t.open[c] = struct{}{}
	t.mu.Unlock()
	return tracked{Conn: c, t: t}, nil
}

// CloseAll closes every connection still open.
func (t *Tracker) CloseAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.open {
		_ = c.Close()
	}
	clear(t.open)
}

// tracked forgets itself when closed, so a long-running client does not keep
// every connection it ever opened.
type tracked struct {
	net.Conn
	t *Tracker
}

func (c tracked) Close() error {
	c.t.mu.Lock()
	delete(c.t.open, c.Conn)
	c.t.mu.Unlock()
	return c.Conn.Close()
}
