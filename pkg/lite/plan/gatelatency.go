package plan

import (
	"fmt"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// GateLowestLatency names a model of Gate Lite's lowest-latency strategy,
// simulated for comparison only (the proxy does not offer it): every
// connection goes to the backend with the lowest latency estimate, with no
// hysteresis and no sharing, so every replica herds onto the same backend
// and noise moves the herd.
const GateLowestLatency strategy.Name = "gate-lowest-latency"

// parseName accepts the proxy's strategies and the simulator's models.
func parseName(s string) (strategy.Name, error) {
	if strategy.Name(s) == GateLowestLatency {
		return GateLowestLatency, nil
	}
	n, err := strategy.ParseName(s)
	if err != nil {
		return "", fmt.Errorf("%w, or %s to model Gate Lite", err, GateLowestLatency)
	}
	return n, nil
}

// simStrategies are the models the simulator adds to the manager.
func simStrategies() map[strategy.Name]strategy.Factory {
	return map[strategy.Name]strategy.Factory{
		GateLowestLatency: func(strategy.Env) strategy.Strategy { return &gateLatency{} },
	}
}

// gateLatency orders by latency estimate, lowest first; unmeasured
// backends go first so that they get measured, ties keep config order.
type gateLatency struct {
	mu      sync.Mutex
	leader  string
	changes uint64
}

var _ strategy.Leader = (*gateLatency)(nil)

func (*gateLatency) Inputs() strategy.Inputs { return strategy.InputLatency }

func (g *gateLatency) Order(cands []strategy.Candidate, intent strategy.Intent, order []int) {
	for i := range order {
		order[i] = i
	}
	key := func(i int) time.Duration {
		if !cands[i].HasLatency {
			return -1
		}
		return cands[i].Latency
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && key(order[j]) < key(order[j-1]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	if intent != strategy.IntentLogin || len(order) == 0 {
		return
	}
	g.mu.Lock()
	if first := cands[order[0]].Addr; first != g.leader {
		if g.leader != "" {
			g.changes++
		}
		g.leader = first
	}
	g.mu.Unlock()
}

func (g *gateLatency) Leader() (string, uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.leader, g.changes
}
