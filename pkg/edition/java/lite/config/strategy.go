package config

import "go.minekube.com/gate/pkg/lite/strategy"

// strategy decodes `strategy`. The names are strategy's; an empty name is
// the default, as in Gate.
func (d *decoder) strategy(e entry, dst *strategy.Name) {
	n, ok := d.scalar(e, "a strategy name")
	if !ok {
		return
	}
	s, err := strategy.ParseName(n.Value)
	if err != nil {
		d.invalid(e, "unknown %q (want %s)", truncate(n.Value), strategy.NameList())
		return
	}
	*dst = s
}

// StrategyRoute is the route as the strategy manager takes it, under key and
// with backends: the static backends when serving, the expanded ones for a
// matched host when planning. It is the one translation from config to
// strategy, so that serving and `gate lite plan` cannot disagree.
func (r *Route) StrategyRoute(key string, backends []string) strategy.Route {
	return strategy.Route{
		Key:      key,
		Strategy: r.Strategy,
		Backends: backends,
		Health:   r.HealthCheck,
		P2C:      r.P2C,
		Capacity: r.Capacity,
	}
}
