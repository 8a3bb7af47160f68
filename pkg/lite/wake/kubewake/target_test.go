package kubewake

import (
	"errors"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"go.minekube.com/gate/pkg/lite/wake"
)

func newTarget(t *testing.T, c *Client, s wake.Spec) *Target {
	t.Helper()
	tg, err := NewTarget(c, s)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func running(t *testing.T, tg *Target) bool {
	t.Helper()
	r, err := tg.Running(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// 50 replicas of the proxy wake one sleeping workload at the same moment,
// each through a Target of its own: the API server sees exactly one write.
func TestFiftyConcurrentWakesScaleOnce(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	for _, resource := range []string{"deployment", "statefulset"} {
		t.Run(resource, func(t *testing.T) {
			spec := e.workload(t, ns, resource, "mc-"+resource, 0)
			before := e.observe(t, spec)
			c := e.client(t, e.cfg)
			targets := make([]*Target, 50)
			for i := range targets {
				targets[i] = newTarget(t, c, spec)
			}
			if running(t, targets[0]) {
				t.Fatal("running at replicas 0")
			}
			start := make(chan struct{})
			errs := make([]error, len(targets))
			var wg sync.WaitGroup
			for i, tg := range targets {
				wg.Go(func() {
					<-start
					_, errs[i] = tg.Wake(t.Context(), wake.Request{ServerAddress: "mc.example.com"})
				})
			}
			close(start)
			wg.Wait()
			var sum Calls
			for i, tg := range targets {
				if errs[i] != nil {
					t.Errorf("wake %d: %v", i, errs[i])
				}
				c := tg.Calls()
				sum.Gets += c.Gets
				sum.Updates += c.Updates
				sum.Conflicts += c.Conflicts
			}
			after := e.observe(t, spec)
			t.Logf("50 wakes: %d scale reads, %d scale writes accepted, %d refused with Conflict; generation %d -> %d",
				sum.Gets, sum.Updates, sum.Conflicts, before.generation, after.generation)
			if sum.Updates != 1 {
				t.Errorf("%d scale writes accepted, want 1", sum.Updates)
			}
			if after.replicas != 1 || after.generation != before.generation+1 {
				t.Errorf("after the wakes: %+v, want replicas 1 and one write since %+v", after, before)
			}
			if !running(t, targets[0]) {
				t.Error("not running after the wake")
			}
		})
	}
}

func TestWakeLeavesRunningReplicasAlone(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	spec := e.workload(t, ns, "deployment", "mc", 2)
	before := e.observe(t, spec)
	tg := newTarget(t, e.client(t, e.cfg), spec)
	for range 3 {
		if _, err := tg.Wake(t.Context(), wake.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	if c := tg.Calls(); c.Updates != 0 || c.Conflicts != 0 {
		t.Errorf("calls %+v, want no write", c)
	}
	if after := e.observe(t, spec); after != before {
		t.Errorf("object changed from %+v to %+v", before, after)
	}
	if !running(t, tg) {
		t.Error("replicas 2 is not running")
	}
}

// Sleep only undoes what Wake does: 1 becomes 0, 0 stays, more than one
// was someone else's decision.
func TestSleepScalesOneToZeroOnly(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	for _, resource := range []string{"deployment", "statefulset"} {
		t.Run(resource, func(t *testing.T) {
			c := e.client(t, e.cfg)
			spec := e.workload(t, ns, resource, "one-"+resource, 1)
			tg := newTarget(t, c, spec)
			if !running(t, tg) {
				t.Fatal("replicas 1 is not running")
			}
			if err := tg.Sleep(t.Context(), wake.Request{}); err != nil {
				t.Fatal(err)
			}
			if got := e.observe(t, spec); got.replicas != 0 {
				t.Errorf("after sleep replicas %d, want 0", got.replicas)
			}
			if running(t, tg) {
				t.Error("running after sleep")
			}
			before := e.observe(t, spec)
			if err := tg.Sleep(t.Context(), wake.Request{}); err != nil {
				t.Errorf("sleep of a sleeping target: %v", err)
			}
			if after := e.observe(t, spec); after != before || tg.Calls().Updates != 1 {
				t.Errorf("the second sleep wrote: %+v -> %+v, calls %+v", before, after, tg.Calls())
			}

			scaled := e.workload(t, ns, resource, "three-"+resource, 3)
			before = e.observe(t, scaled)
			tg = newTarget(t, c, scaled)
			if err := tg.Sleep(t.Context(), wake.Request{}); !errors.Is(err, ErrScaledUp) {
				t.Errorf("sleep at replicas 3: err = %v, want ErrScaledUp", err)
			}
			if after := e.observe(t, scaled); after != before {
				t.Errorf("replicas 3 changed: %+v -> %+v", before, after)
			}
		})
	}
}

func TestWakeOfAMissingObjectSaysNotFound(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	tg := newTarget(t, e.client(t, e.cfg), wake.Spec{Kind: wake.KindKubernetes, Resource: "statefulset", Namespace: ns, Name: "nope"})
	_, err := tg.Wake(t.Context(), wake.Request{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("err = %v, want NotFound", err)
	}
	t.Logf("error text: %v", err)
}

func TestNewTargetRejectsWhatItCannotScale(t *testing.T) {
	for _, s := range []wake.Spec{
		{Kind: wake.KindDocker, Name: "mc"},
		{Kind: wake.KindKubernetes, Resource: "daemonset", Namespace: "ns", Name: "mc"},
		{Kind: wake.KindKubernetes, Resource: "deployment", Name: "mc"},
		{Kind: wake.KindKubernetes, Resource: "deployment", Namespace: "ns"},
	} {
		if _, err := NewTarget(nil, s); err == nil {
			t.Errorf("NewTarget(%+v) accepted", s)
		}
	}
}
