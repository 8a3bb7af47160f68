package main

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The short soak runs with the tests (CI); the long one is run by hand:
//
//	go test ./tools/soak -run Soak -soak.duration 3m -v
var soakDuration = flag.Duration("soak.duration", 2*time.Second, "abusive phase of TestSoak")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestSoak(t *testing.T) {
	r, err := Run(context.Background(), Options{Duration: *soakDuration, Workers: 2, Players: 2, Pace: 10 * time.Millisecond, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.print(&out)
	t.Log("\n" + out.String())
	if len(r.Problems) > 0 {
		t.Fatalf("problems: %q", r.Problems)
	}
	if r.Legit.Served == 0 || r.Admission == nil || r.Admission.Open != 0 {
		t.Fatalf("served %d, admission %+v", r.Legit.Served, r.Admission)
	}
	for _, k := range r.Kinds {
		if k.Attempts == 0 {
			t.Fatalf("attack %s never ran", k.Name)
		}
	}
}

func TestPlayerAddressesSpreadOverBlocks(t *testing.T) {
	seen := map[[3]byte]int{}
	for n := range int64(2 * playerBlocks) {
		a := playerAddr(n).Addr().As4()
		seen[[3]byte{a[0], a[1], a[2]}]++
	}
	if len(seen) != playerBlocks {
		t.Fatalf("%d players over %d /24 blocks, want %d", 2*playerBlocks, len(seen), playerBlocks)
	}
}

// The heap check allows for the soak's own records: a long run keeps every
// connection's duration in this same process, and that must not read as the proxy
// failing to return to its baseline, while heap beyond it still does.
func TestHeapCheckAllowsForTheSoaksOwnRecords(t *testing.T) {
	const records = 1 << 20 // 8 MiB of durations, more than heapSlack
	report := func(heapAfter uint64) *Report {
		r := &Report{Kinds: []*kindStats{{Name: "garbage", held: make([]time.Duration, 0, records)}},
			Legit: &playerStats{Served: 1}}
		r.PID = "self"
		r.Baseline.HeapInuse, r.Settled.HeapInuse = 1<<20, heapAfter
		r.check()
		return r
	}
	if r := report(1<<20 + heapSlack + 8*records); len(r.Problems) != 0 {
		t.Fatalf("records and slack only: problems %v", r.Problems)
	}
	if r := report(1<<20 + heapSlack + 8*records + 1<<20); len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "soak's own records") {
		t.Fatalf("1 MiB beyond records and slack: problems %v, want the heap finding", r.Problems)
	}
}
