package strategy

import (
	"fmt"
	"strings"
	"time"
)

// passedOver says in words what, besides plain health, keeps the backend
// from a login's first pick right now, for the admin API and `gate lite
// status`: a storm spill, attempts in flight at its limit, a failure share
// whose penalty keeps it behind, a slow start, a capacity learnt from
// refusals. "" when nothing does.
func (m *Manager) passedOver(b *backend, v *Verdict, r *route, now time.Time) string {
	if b == nil {
		return ""
	}
	nowNS := now.UnixNano()
	var parts []string
	if v.Spill {
		parts = append(parts, "storm: every healthy backend has its attempts in flight at its limit, so the strategy orders the busy ones")
	}
	if v.Reason == ReasonBusy {
		limit := b.limitAt(nowNS)
		if b.doubtful(nowNS) {
			limit = 1
		}
		parts = append(parts, fmt.Sprintf("busy: %d attempts in flight, limit %d", v.State.Unsettled, limit))
	}
	if r != nil && r.inputs&InputLatency != 0 && v.Failures > 0 {
		parts = append(parts, fmt.Sprintf("failure share %.2f: +%v penalty on its score", float64(v.Failures)/1000, v.Penalty))
	}
	if r != nil && r.name.SlowStarts() && r.p2c.SlowStart > 0 {
		switch w := b.warm(nowNS); {
		case b.warmSince.Load() == rampPending:
			parts = append(parts, "recovered: its first player starts its slow start (the next login goes there)")
		case w < r.p2c.SlowStart:
			parts = append(parts, fmt.Sprintf("slow start: %d%% of its fair share, %.1f placements of credit",
				rampWeight(w, r.p2c.SlowStart)/10, float64(b.rampCredit.Load())/1000))
		}
	}
	if held := b.held(nowNS); held > 0 {
		parts = append(parts, fmt.Sprintf("turned a player away as full holding %d: capacity %d until a report shows more (or %v)",
			held, held, time.Unix(0, b.heldAt.Load()+int64(RefusalMemory)).UTC().Format(time.TimeOnly)))
	}
	return strings.Join(parts, "; ")
}
