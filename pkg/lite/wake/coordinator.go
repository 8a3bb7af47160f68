package wake

import (
	"context"
	"errors"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
)

// Phases of a target (State.Phase).
const (
	PhaseAsleep = "asleep"
	PhaseWaking = "waking"
	PhaseAwake  = "awake"
	PhaseIdle   = "idle"
)

// Errors Wake returns, checked with errors.Is.
var (
	// ErrUnbound: no Binding names the key (a reload dropped it, or it never was).
	ErrUnbound = errors.New("wake: no such target")
	// ErrClosed: the Coordinator was closed.
	ErrClosed = errors.New("wake: coordinator closed")
	// ErrNotReady: the engine accepted the wake but no backend answered a
	// status exchange within Options.ReadyWithin.
	ErrNotReady = errors.New("wake: target not ready")
)

// Options configure NewCoordinator. Every zero value means the default named.
type Options struct {
	// Holders is how replicas agree before a sleep; nil means Local().
	Holders Holders
	// Log receives one line per phase transition; the zero Logger discards.
	Log logr.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// AfterFunc schedules f after d and returns its stop func; nil means
	// time.AfterFunc. Tests inject a fake clock's timers.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// RenewEvery is how often Holders.Hold is renewed while sessions remain;
	// 0 means 10s.
	RenewEvery time.Duration
}

// Coordinator keeps the state of every target the routes name. TODO.
type Coordinator struct{}

// NewCoordinator returns a Coordinator with no targets; Bind gives it some.
func NewCoordinator(o Options) *Coordinator { return &Coordinator{} }

// Binding is one target a route set names.
type Binding struct {
	Target Target
	// IdleAfter is how long the target stays idle before it is put to
	// sleep; 0 means never.
	IdleAfter time.Duration
	// Request is what sleep calls send.
	Request Request
}

// Bind sets the targets. TODO.
func (c *Coordinator) Bind(bs []Binding) {}

// Asleep says whether pings should be answered as asleep. TODO.
func (c *Coordinator) Asleep(key string) bool { return false }

// Wake wakes the target and waits until ready. TODO.
func (c *Coordinator) Wake(ctx context.Context, key string, req Request, ready func(ctx context.Context, r Result) (addr string, ok bool)) (addr string, err error) {
	return "", ErrUnbound
}

// Session marks one player session to key. TODO.
func (c *Coordinator) Session(key string) (end func()) { return func() {} }

// ReportPlayers feeds players.online. TODO.
func (c *Coordinator) ReportPlayers(key string, online int) {}

// TypicalWake is the median of the last measured wakes. TODO.
func (c *Coordinator) TypicalWake(key string) time.Duration { return 0 }

// States lists every target's state, sorted by key. TODO.
func (c *Coordinator) States() []State { return nil }

// Close stops timers and goroutines. TODO.
func (c *Coordinator) Close() {}

// Collector exports the targets' metrics. TODO.
func (c *Coordinator) Collector() prometheus.Collector { return nil }
