package wake

import (
	"context"
	"net"
	"testing"

	"go.minekube.com/gate/internal/mctest"
)

// Regression: a command or webhook target was taken as awake after every
// restart of the proxy, so its pings got "Can't connect to server" for
// idleAfter. With none of its routes' backends accepting (one refuses, one is
// black-holed), it is now found asleep.
func TestTargetThatCannotSayStartsAsleepWhenNoBackendAnswers(t *testing.T) {
	w, _ := newTestRoutes(t, (&builds{}).build)
	refused, hole := mctest.RefusedAddr(t), mctest.BlackholeAddr(t)
	w.Bind([]Route{
		{Key: "a", Spec: Spec{Kind: KindExec, Command: []string{"start"}}, Backends: []string{refused}},
		{Key: "b", Spec: Spec{Kind: KindExec, Command: []string{"start"}}, Backends: []string{hole}},
	})
	mctest.WaitFor(t, "the target to be found asleep", wait, func() bool { return w.Asleep("a") && w.Asleep("b") })
}

// A backend that accepts makes the target run, whichever of its routes lists
// it; the others not answering changes nothing.
func TestBackendObserverRunsWhenOneBackendAccepts(t *testing.T) {
	ln := mctest.Listen(t)
	targets := observed([]Target{stub("exec x"), stub("exec x")},
		[]Route{{Backends: []string{mctest.RefusedAddr(t)}}, {Backends: []string{ln.Addr().String()}}},
		(&net.Dialer{}).DialContext)
	for i, tgt := range targets {
		obs, ok := tgt.(Observer)
		if !ok {
			t.Fatalf("target %d is no Observer", i)
		}
		if running, err := obs.Running(context.Background()); !running || err != nil {
			t.Fatalf("target %d: Running = %v, %v; want true", i, running, err)
		}
	}
}

// A target whose engine says whether it runs is asked, not its backends; one
// whose routes list no static backend (a webhook that names its own) is left
// as it was, awake until found otherwise.
func TestObservedLeavesEnginesThatKnowAndTargetsWithoutBackends(t *testing.T) {
	engine := &asleepTarget{}
	targets := observed([]Target{engine, stub("webhook x"), nil},
		[]Route{{Backends: []string{"127.0.0.1:1"}}, {}, {Backends: []string{"127.0.0.1:1"}}},
		(&net.Dialer{}).DialContext)
	if targets[0] != Target(engine) {
		t.Fatalf("an engine's Observer was replaced by %T", targets[0])
	}
	if _, ok := targets[1].(Observer); ok {
		t.Fatal("a target without backends got a backend check")
	}
	if targets[2] != nil {
		t.Fatalf("a target not built became %v", targets[2])
	}
}
