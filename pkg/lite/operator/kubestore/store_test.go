package kubestore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/pkg/lite/operator"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNamespaceFallsBackInOrder(t *testing.T) {
	if got := Namespace("ops", "games"); got != "ops" {
		t.Fatalf("configured: %q", got)
	}
	if got := Namespace("", "games"); got != "games" {
		t.Fatalf("discovery's: %q", got)
	}
}

func TestChangePatchTouchesItsKeyOnly(t *testing.T) {
	e := operator.Entry{Kind: operator.Drain, Target: "10.0.0.1:25565", At: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	set := changePatch(operator.Change{Entry: e})
	if len(set) != 1 || set[e.Key()] == nil || *set[e.Key()] != (operator.State{e.Key(): e}).Data()[e.Key()] {
		t.Fatalf("set: %v", set)
	}
	del := changePatch(operator.Change{Entry: e, Delete: true})
	if v, ok := del[e.Key()]; len(del) != 1 || !ok || v != nil {
		t.Fatalf("delete: %v", del)
	}
}

// storeOn is a Store on the ConfigMap name in ns of the real API server.
func storeOn(t *testing.T, k *enginetest.Kube, ns string, now func() time.Time) *Store {
	t.Helper()
	s, err := New(Options{REST: k.Config, Namespace: ns, Name: "gate-lite-operator", Now: now, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func ban(name string, at time.Time, expires *time.Time) operator.Change {
	return operator.Change{Entry: operator.Entry{Kind: operator.Ban, Target: "name:" + name, By: "test", At: at, Expires: expires}}
}

// Two replicas writing as fast as they can lose no key and starve no write
// (the conditional read-modify-write this replaced failed one of 40 in CI); a
// key the proxy cannot read stays; a delete removes its key only.
func TestConcurrentWritesOnTheAPIServer(t *testing.T) {
	k := enginetest.NeedKube(t)
	ns := k.Namespace(t)
	ctx := t.Context()
	hand := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "gate-lite-operator"},
		Data: map[string]string{"hand-written": "not an entry"}}
	if _, err := k.Admin.CoreV1().ConfigMaps(ns).Create(ctx, hand, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	var wg sync.WaitGroup
	for r, s := range []*Store{storeOn(t, k, ns, nil), storeOn(t, k, ns, nil)} {
		wg.Go(func() {
			for i := range 30 {
				if _, _, err := s.Write(ctx, ban(fmt.Sprintf("p%d_%d", r, i), at, nil)); err != nil {
					t.Errorf("replica %d, ban %d: %v", r, i, err)
				}
			}
		})
	}
	wg.Wait()
	s := storeOn(t, k, ns, nil)
	st, _, err := s.Write(ctx, operator.Change{Entry: ban("p0_0", at, nil).Entry, Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 59 {
		t.Fatalf("the write's state holds %d entries, want 59", len(st))
	}
	cm, err := k.Admin.CoreV1().ConfigMaps(ns).Get(ctx, "gate-lite-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Data) != 60 || cm.Data["hand-written"] != "not an entry" {
		t.Fatalf("the ConfigMap holds %d keys (want 59 bans and the hand-written one); hand-written %q", len(cm.Data), cm.Data["hand-written"])
	}
}

// A write prunes the bans that ended, and creates the ConfigMap where the
// account may; a ban renewed after the pruning write read it is kept.
func TestWritePrunesEndedBansOnTheAPIServer(t *testing.T) {
	k := enginetest.NeedKube(t)
	ns := k.Namespace(t)
	ctx := t.Context()
	now := time.Now()
	clock := now
	var mu sync.Mutex
	s := storeOn(t, k, ns, func() time.Time { mu.Lock(); defer mu.Unlock(); return clock })
	soon := now.Add(time.Minute)
	if _, _, err := s.Write(ctx, ban("short", now, &soon)); err != nil {
		t.Fatalf("first write (creates the ConfigMap): %v", err)
	}
	_, vLong, err := s.Write(ctx, ban("long", now, nil))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	clock = now.Add(2 * time.Minute)
	mu.Unlock()
	st, v3, err := s.Write(ctx, ban("third", now, nil))
	if err != nil {
		t.Fatal(err)
	}
	if vLong == 0 || v3 <= vLong {
		t.Fatalf("versions of two writes in turn: %d then %d, want increasing", vLong, v3)
	}
	cm, err := k.Admin.CoreV1().ConfigMaps(ns).Get(ctx, "gate-lite-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || len(cm.Data) != 2 {
		t.Fatalf("after the ban ended: state %d entries, ConfigMap %d keys; want long and third", len(st), len(cm.Data))
	}
	if cm.Labels["app.kubernetes.io/managed-by"] != "gate-lite" {
		t.Fatalf("created without the managed-by label: %v", cm.Labels)
	}
	// The conditional pruning patch refuses a ConfigMap that changed since.
	if _, err := s.patch(context.WithoutCancel(ctx), removalPatch([]string{"x"}), "1"); err == nil {
		t.Fatal("a pruning patch on a stale resourceVersion was applied")
	}
}
