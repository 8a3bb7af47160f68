package strategy

import (
	"time"

	"github.com/go-logr/logr"
)

// Options configure a Manager. The zero value is usable.
type Options struct {
	// Seed seeds every random choice the manager and its strategies make.
	// Zero means a seed from crypto/rand; tests and the simulator pass a
	// fixed seed to get the same orders for the same call sequence.
	Seed uint64
	// Now is the clock for health, latency freshness and hysteresis.
	// Nil means time.Now. Run's timers are real timers (use testing/synctest
	// to run them on virtual time).
	Now func() time.Time
	// Log receives backend state changes, once per change. The zero Logger
	// discards.
	Log logr.Logger
	// Prober performs status probes for health checks, for unmeasured
	// lowest-latency backends and for backends whose ejection ended.
	// Nil means no active probes; passive health still works.
	Prober Prober
	// Strategies adds strategies to (or replaces) the built-ins for this
	// manager only. Nil means the built-ins alone.
	Strategies map[Name]Factory
}
