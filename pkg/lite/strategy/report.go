package strategy

import (
	"context"
	"time"
)

// Report is one status exchange with a backend, from the proxy's status
// fetch or from a probe.
type Report struct {
	// RTT is how long the exchange took; it feeds the latency estimate.
	// Zero means "not measured" and adds no sample.
	RTT time.Duration
	// Online and Max are the players the backend reports (players.online/max).
	Online, Max int
	// HasPlayers is false when the response had no players object.
	HasPlayers bool
	Version    string
	Protocol   int32
	MOTD       string
}

// Prober performs one status exchange with a backend. The proxy implements
// it over TCP and must honour ctx, which carries the probe's deadline.
type Prober interface {
	Probe(ctx context.Context, addr string) (Report, error)
}
