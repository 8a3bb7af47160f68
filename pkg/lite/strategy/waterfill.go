package strategy

import "slices"

// With many replicas, each one's placements are charged peers times (see
// loadOf), so one player on a small backend reads as peers players: a
// replica that always takes the least-loaded backend fills small backends
// in quanta of peers players, and the replicas, all reading the same
// reports, pick the same one. waterPick spreads the first pick instead:
// the peers players the replicas will place before the next report are
// poured into the emptiest backends up to a common level (each holding
// its capacity's share), and this replica draws its one player from that
// plan, a backend's chance being the players the plan gives it. Every
// replica fills its share of the gap, the sum fills the gap, and a small
// backend is never charged more than its part of it.

// waterPick draws the first backend of the pool tier (indexes of ev)
// from the water-filling plan of peers players (at least one); -1 when the
// pool has one backend.
// cap(ev[i]) is capacityOf for candidate i.
func waterPick(ev []p2cEval, caps []int64, tier uint8, peers int64, rng *lockedRand) int {
	var small [p2cStack]int
	idx := small[:0]
	for i := range ev {
		if ev[i].tier == tier && caps[i] > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2 {
		return -1
	}
	peers = max(peers, 1)
	slices.SortFunc(idx, func(a, b int) int { return cmpInt64(ev[a].load, ev[b].load) })
	// Level L (load units) at which sum over the k emptiest of
	// (L - load) x cap reaches peers players (x loadUnit).
	want := peers * loadUnit
	var capSum, weighted int64 // sum of cap, sum of load x cap over the k emptiest
	k := 0
	level := int64(0)
	for k < len(idx) {
		i := idx[k]
		capSum += caps[i]
		weighted += ev[i].load * caps[i]
		k++
		level = (want + weighted) / capSum
		if k == len(idx) || level <= ev[idx[k]].load {
			break
		}
	}
	var total int64
	for _, i := range idx[:k] {
		total += max(level-ev[i].load, 0) * caps[i]
	}
	if total <= 0 {
		return idx[0]
	}
	r := rng.Int64N(total)
	for _, i := range idx[:k] {
		w := max(level-ev[i].load, 0) * caps[i]
		if r < w {
			return i
		}
		r -= w
	}
	return idx[0]
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
