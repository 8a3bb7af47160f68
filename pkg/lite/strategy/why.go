package strategy

import (
	"fmt"
	"strings"
	"time"
)

// Why puts the verdict in words for operators (the admin API's backend rows): why the
// backend is eligible or demoted, what a load-reading strategy holds against it, and
// what holds it back now.
func (v Verdict) Why() string {
	if v.Drained {
		return drainedText
	}
	return v.why() + loadWhy(v.Load) + passedWhy(v.Passed)
}

// why puts a verdict in words.
func (v Verdict) why() string {
	var s string
	switch v.Reason {
	case ReasonNew:
		s = "eligible: no state yet (new backend, tried like a healthy one)"
	case ReasonHealthy:
		s = "eligible: healthy"
	case ReasonUnmeasured:
		s = "eligible: not measured yet, tried like a healthy one"
	case ReasonDown:
		s = "demoted: active health checks failing"
	case ReasonAwaitingProbe:
		s = "demoted: ejection over, waiting for probes to pass"
	case ReasonBusy:
		s = fmt.Sprintf("demoted for now: %d attempts in flight, as many as it may have (suspect, new or on probation: 1)",
			v.State.Unsettled)
	case ReasonEjected:
		s = fmt.Sprintf("demoted: ejected after %d failures until %s",
			EjectFailures, v.State.EjectedUntil.UTC().Format(time.TimeOnly))
	default:
		s = "demoted: " + v.Reason.String()
	}
	if !v.Usable && v.Panic {
		s = "eligible (panic): fewer than half of the route's backends are usable, so all are tried; " + s
	}
	return s
}

// loadWhy adds what a load-reading strategy holds against a backend to its
// eligibility text; "" when nothing (or the strategy reads no load).
func loadWhy(lv *LoadVerdict) string {
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
	if lv.Source == LoadLocal {
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
