package lite

import (
	"fmt"
	"strings"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// loadWhy adds what a load-reading strategy holds against a backend to its
// eligibility text; "" when nothing (or the strategy reads no load).
func loadWhy(lv *strategy.LoadVerdict) string {
	if lv == nil {
		return ""
	}
	var parts []string
	switch {
	case lv.Draining:
		parts = append(parts, "draining (MOTD matches drainMotd): new players only if no other backend can take them")
	case lv.Full:
		parts = append(parts, fmt.Sprintf("full (load %.2f): new players only if every backend is full", lv.Load))
	case lv.Saturated:
		parts = append(parts, fmt.Sprintf("saturated (load %.2f): new players only if no backend is below saturation", lv.Load))
	}
	if lv.Stale {
		parts = append(parts, "stale report: fading toward half full")
	}
	if lv.Source == strategy.LoadLocal {
		parts = append(parts, fmt.Sprintf("report not believed: load from own players x %d replicas", lv.Peers))
	}
	if lv.Ramp < 100 {
		parts = append(parts, fmt.Sprintf("slow start: sampled at %d%% of a settled backend's weight", lv.Ramp))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// passedWhy adds the manager's account of what holds the backend back now.
func passedWhy(passed string) string {
	if passed == "" {
		return ""
	}
	return "; " + passed
}
