package wake

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"go.minekube.com/gate/internal/mctest"
)

func TestMetricsShowPhaseCallsAndWakeDuration(t *testing.T) {
	r := newRig(t, nil)
	f := r.asleepTarget(time.Minute)
	f.takes = []time.Duration{3 * time.Second}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(r.c.Collector())
	if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(time.Minute)
	mctest.WaitFor(t, "asleep", wait, func() bool { return r.c.Asleep(key) })
	want := `
# HELP gate_lite_wake_calls_total Engine and Holders calls for a target, by action (wake, sleep, claim) and result (ok, error; claim: granted, refused, error).
# TYPE gate_lite_wake_calls_total counter
gate_lite_wake_calls_total{action="claim",result="granted",target="docker mc"} 1
gate_lite_wake_calls_total{action="sleep",result="ok",target="docker mc"} 1
gate_lite_wake_calls_total{action="wake",result="ok",target="docker mc"} 1
# HELP gate_lite_wake_state 1 for the target's current phase (asleep, waking, awake, idle), 0 for the others.
# TYPE gate_lite_wake_state gauge
gate_lite_wake_state{phase="asleep",target="docker mc"} 1
gate_lite_wake_state{phase="awake",target="docker mc"} 0
gate_lite_wake_state{phase="idle",target="docker mc"} 0
gate_lite_wake_state{phase="waking",target="docker mc"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "gate_lite_wake_calls_total", "gate_lite_wake_state"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(r.c.Collector(), "gate_lite_wake_duration_seconds"); n != 1 {
		t.Fatalf("%d duration series, want 1", n)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "gate_lite_wake_duration_seconds" {
			h := mf.GetMetric()[0].GetHistogram()
			if h.GetSampleCount() != 1 || h.GetSampleSum() != 3 {
				t.Fatalf("duration histogram count %d sum %v, want 1 and 3", h.GetSampleCount(), h.GetSampleSum())
			}
		}
	}
	// A reload that drops the key drops its series.
	r.c.Bind(nil)
	if n := testutil.CollectAndCount(r.c.Collector()); n != 0 {
		t.Fatalf("%d series after the key was dropped, want 0", n)
	}
}

func TestOneLogLinePerTransition(t *testing.T) {
	r := newRig(t, nil)
	r.asleepTarget(time.Minute)
	if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err != nil {
		t.Fatal(err)
	}
	for range 100 { // pings and reports that change nothing log nothing
		r.c.Asleep(key)
		r.c.ReportPlayers(key, 0)
	}
	for want, n := range map[string]int{
		// Between awake and idle (a new target nobody is on; after the wake) is
		// every session's start and end: debug, not INFO (issue 30, item 11).
		`"from"="awake" "to"="idle"`:    0,
		`"from"="idle" "to"="asleep"`:   1, // the observer's answer
		`"from"="asleep" "to"="waking"`: 1,
		`"from"="waking" "to"="awake"`:  1,
	} {
		if got := r.log.Count(want); got != n {
			t.Errorf("%d INFO lines %s, want %d", got, want, n)
		}
	}
	if n := r.log.Count(`"target"="docker mc"`); n != 3 {
		t.Errorf("%d INFO transition lines, want 3", n)
	}
}

// Regression (issue 30, item 11): each session's start and end on a wake route
// wrote INFO phase lines (idle -> awake, awake -> idle). 100 sessions now write
// none at INFO; they stay visible at debug.
func TestSessionsWriteNoInfoPhaseLines(t *testing.T) {
	r := newRig(t, nil)
	r.asleepTarget(time.Minute)
	if _, err := r.c.Wake(context.Background(), key, Request{}, readyNow); err != nil {
		t.Fatal(err)
	}
	before := r.log.Count(`"target"="docker mc"`)
	for range 100 {
		r.c.Session(key)()
	}
	if n := r.log.Count(`"target"="docker mc"`) - before; n != 0 {
		t.Fatalf("100 sessions wrote %d INFO phase lines, want 0", n)
	}
}
