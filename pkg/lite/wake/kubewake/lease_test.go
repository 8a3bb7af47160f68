package kubewake

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"go.minekube.com/gate/internal/mctest"
)

const testKey = "kubernetes games/statefulset/survival"

func newHolders(t *testing.T, c *Client, ns, identity string, clock *mctest.Clock) *LeaseHolders {
	t.Helper()
	h, err := NewLeaseHolders(c, ns, identity, LeaseOptions{RenewEvery: time.Second, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func claim(t *testing.T, h *LeaseHolders) bool {
	t.Helper()
	return claimQuiet(t, h, 0)
}

func claimQuiet(t *testing.T, h *LeaseHolders, quiet time.Duration) bool {
	t.Helper()
	ok, err := h.ClaimSleep(t.Context(), testKey, quiet)
	if err != nil {
		t.Fatalf("%s: claim sleep: %v", h.identity, err)
	}
	return ok
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (e *kubeEnv) lease(t *testing.T, ns string) *coordinationv1.Lease {
	t.Helper()
	l, err := e.admin.CoordinationV1().Leases(ns).Get(t.Context(), LeaseName(testKey), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	return l
}

// Replica B holds players, replica A has none: A never sleeps the target
// while B's renewal counts; once it stops counting exactly one replica wins
// the sleep, and only a wake opens the next chance.
func TestLeaseHoldersOneSleepClaimPerPeriod(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	c := e.client(t, e.cfg)
	clock := mctest.NewClock(time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC))
	a, b := newHolders(t, c, ns, "gate-a", clock), newHolders(t, c, ns, "gate-b", clock)

	must(t, b.Hold(t.Context(), testKey, 1))
	if claim(t, a) {
		t.Fatal("A claimed the sleep while B holds a session")
	}
	l := e.lease(t, ns)
	if got := *l.Spec.HolderIdentity; got != "gate-b" || *l.Spec.LeaseDurationSeconds != 3 {
		t.Errorf("lease holder %q for %ds, want gate-b for 3s (3 x RenewEvery)", got, *l.Spec.LeaseDurationSeconds)
	}
	if l.Labels[LabelComponent] != "wake" || l.Labels["app.kubernetes.io/name"] != "gate" || l.Annotations[AnnotationTarget] != testKey {
		t.Errorf("lease labels %v, annotations %v", l.Labels, l.Annotations)
	}

	// B renews; its renewal counts for Duration, then B goes silent (it
	// died holding the session).
	clock.Advance(2 * time.Second)
	if claim(t, a) {
		t.Fatal("A claimed the sleep 2s after B's renewal (Duration 3s)")
	}
	must(t, b.Hold(t.Context(), testKey, 4))
	clock.Advance(2999 * time.Millisecond)
	if claim(t, a) {
		t.Fatal("A claimed the sleep 1ms before B's renewal expired")
	}
	clock.Advance(time.Millisecond)
	if !claim(t, a) {
		t.Fatal("A could not claim the sleep after B's renewal expired")
	}
	if claim(t, b) || claim(t, a) {
		t.Fatal("a second sleep was claimed in the same period")
	}
	if got := e.lease(t, ns).Annotations[AnnotationSleepClaim]; !strings.HasPrefix(got, "0 gate-a ") {
		t.Errorf("sleep claim %q, want period 0 by gate-a", got)
	}

	// A wake opens a new period. B's players come and go; Hold(0) clears
	// B's renewal at once, so A need not wait for it to expire.
	must(t, a.Woke(t.Context(), testKey))
	must(t, b.Hold(t.Context(), testKey, 1))
	if claim(t, a) {
		t.Fatal("A claimed the sleep of the new period while B holds a session")
	}
	must(t, b.Hold(t.Context(), testKey, 0))
	if !claim(t, a) {
		t.Fatal("A could not claim the sleep after B dropped its hold")
	}
	if claim(t, b) {
		t.Fatal("B claimed the sleep A already claimed")
	}
	l = e.lease(t, ns)
	if l.Annotations[AnnotationPeriod] != "1" || l.Spec.HolderIdentity != nil || l.Annotations[AnnotationHolders] != "" {
		t.Errorf("lease after the second claim: holder %v, annotations %v", l.Spec.HolderIdentity, l.Annotations)
	}
}

// A release counts for the claim's quiet period: the target stays up
// idleAfter after the last player anywhere left, whenever the other replica's
// countdown happens to end.
func TestLeaseHoldersReleaseHoldsOffClaimsForTheQuietPeriod(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	clock := mctest.NewClock(time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC))
	c := e.client(t, e.cfg)
	a, b := newHolders(t, c, ns, "gate-a", clock), newHolders(t, c, ns, "gate-b", clock)
	must(t, b.Hold(t.Context(), testKey, 3))
	clock.Advance(time.Second)
	must(t, b.Hold(t.Context(), testKey, 0))
	if got := e.lease(t, ns).Spec.HolderIdentity; got != nil {
		t.Errorf("holder %q after B's release, want none", *got)
	}
	clock.Advance(59 * time.Second)
	if claimQuiet(t, a, time.Minute) {
		t.Fatal("A claimed the sleep 59s after B's last player left (quiet 1m)")
	}
	clock.Advance(time.Second)
	if !claimQuiet(t, a, time.Minute) {
		t.Fatal("A could not claim the sleep 1m after B's release")
	}
	if claimQuiet(t, b, time.Minute) {
		t.Fatal("a second claim in the same period")
	}
}

// A replica's own sessions do not stop it from claiming: Holders only
// arbitrates between replicas, and the caller asks for a sleep only when
// it has none itself.
func TestLeaseHoldersOwnRenewalDoesNotBlock(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	clock := mctest.NewClock(time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC))
	a := newHolders(t, e.client(t, e.cfg), ns, "gate-a", clock)
	must(t, a.Hold(t.Context(), testKey, 2))
	if !claim(t, a) {
		t.Fatal("A's own renewal blocked its claim")
	}
}

func TestLeaseHoldersHoldZeroCreatesNothing(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	clock := mctest.NewClock(time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC))
	a := newHolders(t, e.client(t, e.cfg), ns, "gate-a", clock)
	must(t, a.Hold(t.Context(), testKey, 0))
	_, err := e.admin.CoordinationV1().Leases(ns).Get(t.Context(), LeaseName(testKey), metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("get lease after Hold(0) of a target nobody held: err = %v, want NotFound", err)
	}
}

// Twenty replicas race: every renewal lands (no lost update), and then of
// twenty concurrent claims exactly one wins.
func TestLeaseHoldersConcurrentReplicas(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	c := e.client(t, e.cfg)
	clock := mctest.NewClock(time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC))
	hs := make([]*LeaseHolders, 20)
	for i := range hs {
		hs[i] = newHolders(t, c, ns, fmt.Sprintf("gate-%02d", i), clock)
	}
	race := func(what string, f func(i int, h *LeaseHolders)) {
		w0, c0 := writes(hs)
		began := time.Now()
		defer func() {
			w1, c1 := writes(hs)
			t.Logf("%d replicas racing to %s: %d writes accepted, %d refused with Conflict, %v",
				len(hs), what, w1-w0, c1-c0, time.Since(began).Round(time.Millisecond))
		}()
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, h := range hs {
			wg.Go(func() { <-start; f(i, h) })
		}
		close(start)
		wg.Wait()
	}
	errs := make([]error, len(hs))
	race("hold", func(i int, h *LeaseHolders) { errs[i] = h.Hold(t.Context(), testKey, i+1) })
	for i, err := range errs {
		if err != nil {
			t.Fatalf("hold %d: %v", i, err)
		}
	}
	var holders map[string]holder
	if err := json.Unmarshal([]byte(e.lease(t, ns).Annotations[AnnotationHolders]), &holders); err != nil {
		t.Fatal(err)
	}
	if len(holders) != len(hs) {
		t.Fatalf("%d holders recorded, want %d: %v", len(holders), len(hs), holders)
	}

	race("let go", func(i int, h *LeaseHolders) { errs[i] = h.Hold(t.Context(), testKey, 0) })
	won := make([]bool, len(hs))
	race("claim the sleep", func(i int, h *LeaseHolders) { won[i], errs[i] = h.ClaimSleep(t.Context(), testKey, 0) })
	n := 0
	for i := range hs {
		if errs[i] != nil {
			t.Errorf("claim %d: %v", i, errs[i])
		}
		if won[i] {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d of %d concurrent claims won, want exactly 1", n, len(hs))
	}
}

func writes(hs []*LeaseHolders) (accepted, conflicts uint64) {
	for _, h := range hs {
		w, c := h.Writes()
		accepted += w
		conflicts += c
	}
	return accepted, conflicts
}

func TestLeaseNameIsAStableDNSLabel(t *testing.T) {
	long := "kubernetes " + strings.Repeat("very-long-namespace", 4) + "/statefulset/" + strings.Repeat("x", 200)
	for _, key := range []string{testKey, "kubernetes a/deployment/b", long, "docker mc", "exec /usr/bin/start --world 'a b'", "", "---"} {
		name := LeaseName(key)
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			t.Errorf("LeaseName(%q) = %q: %v", key, name, errs)
		}
		if LeaseName(key) != name {
			t.Errorf("LeaseName(%q) is not stable", key)
		}
	}
	if got := LeaseName(testKey); !strings.HasPrefix(got, "gate-wake-kubernetes-games-statefulset-survival-") {
		t.Errorf("LeaseName(%q) = %q, want the key readable in it", testKey, got)
	}
	// Keys that differ only in punctuation share a slug but not a name.
	if LeaseName("kubernetes a/deployment/b-c") == LeaseName("kubernetes a/deployment/b/c") {
		t.Error("two keys with one slug got one Lease")
	}
}
