package plan

import (
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// buckets splits count connections into up to ten spans.
func buckets(count, backends int) []Bucket {
	n := min(10, count)
	out := make([]Bucket, n)
	for j := range out {
		out[j] = Bucket{From: j*count/n + 1, To: (j + 1) * count / n, Players: make([]int, backends)}
	}
	return out
}

// session is a simulated player on backend k until end.
type session struct {
	end   time.Time
	seq   int
	k     int
	lease *strategy.Lease
}

// sessionHeap orders sessions by end time, then arrival, so that equal
// end times release in a fixed order.
type sessionHeap []session

func (h sessionHeap) Len() int { return len(h) }
func (h sessionHeap) Less(i, j int) bool {
	if !h[i].end.Equal(h[j].end) {
		return h[i].end.Before(h[j].end)
	}
	return h[i].seq < h[j].seq
}
func (h sessionHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sessionHeap) Push(x any)   { *h = append(*h, x.(session)) }
func (h *sessionHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
