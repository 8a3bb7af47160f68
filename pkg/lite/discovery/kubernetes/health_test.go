package kubernetes

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

func TestHealthOneStalePerOutageFreshWhenEveryFailedKindIsBack(t *testing.T) {
	clock := mctest.NewClock(time.Time{})
	var logs mctest.Logs
	var stales, freshes int
	var fails atomic.Int64
	h := &health{
		log: logs.Logger(0), now: clock.Now, fails: &fails,
		onStale: func(error) { stales++ },
		onFresh: func() { freshes++ },
	}
	refused := errors.New("connection refused")

	h.ok(resServices) // fresh already: nothing to say
	h.fail(resServices, refused)
	h.fail(resEndpointSlices, refused)
	h.fail(resServices, refused)
	clock.Advance(3 * time.Second)
	h.ok(resServices)
	if stales != 1 || freshes != 0 {
		t.Fatalf("after three failures and one kind back: %d stale, %d fresh; want 1, 0", stales, freshes)
	}
	h.ok(resEndpointSlices)
	h.ok(resEndpointSlices)
	if freshes != 1 {
		t.Fatalf("%d fresh signals once both kinds are back, want 1", freshes)
	}
	if got := logs.Find("kubernetes source fresh again"); len(got) != 1 || !contains(got[0], `"outage"="3s"`) {
		t.Errorf("fresh lines %q, want one with the outage's 3s", got)
	}
	if n := logs.Count("kubernetes source stale"); n != 1 {
		t.Errorf("%d stale lines, want 1", n)
	}

	// A second outage is a second Stale.
	h.fail(resEndpointSlices, refused)
	if stales != 2 || fails.Load() != 4 {
		t.Errorf("second outage: %d stale, %d failures; want 2, 4", stales, fails.Load())
	}
}
