package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"go.minekube.com/gate/pkg/lite/admin"
)

// The operator layer shared through one ConfigMap (issue 34): a write on one
// replica is served by the other within 2 s, live sessions flow on, and
// concurrent writes on both replicas lose no key. Real kube-apiserver, two
// proxies; the figures are printed as "figure:" lines.

func TestOperatorMaintenanceReachesTheOtherReplicaThroughTheConfigMap(t *testing.T) {
	w := newKubeWorld(t, 2)
	w.service("lobby", map[string]string{"gate.minekube.com/hosts": lobbyHost, "gate.minekube.com/strategy": "round-robin"})
	w.slice("lobby", 2)
	a, b := w.gate(w.kubeconfig), w.gate(w.kubeconfig)
	until(t, "both replicas route the host", 10*time.Second, func() bool {
		return routeBackends(t, a, lobbyHost) == 2 && routeBackends(t, b, lobbyHost) == 2
	})
	var held []*session
	for len(held) < 100 {
		s, why, ok := join(t, []*running{a, b}[len(held)%2].proxy, lobbyHost)
		if !ok {
			t.Fatalf("login %d: %s", len(held), why)
		}
		held = append(held, s)
	}
	set := time.Now()
	if code, out := gateLite(a, "s3cret", "maintenance", "--route", lobbyHost, "--text", "Back at 18:00", "--bypass", "Admin"); code != 0 {
		t.Fatalf("maintenance through replica A: %d %s", code, out)
	}
	until(t, "replica B's pings show the maintenance", 2*time.Second, func() bool {
		return strings.Contains(ping(t, b.proxy, lobbyHost), "Back at 18:00")
	})
	t.Logf("figure: maintenance set through replica A served by replica B's pings %v after the write began", time.Since(set).Round(time.Millisecond))
	for _, g := range []*running{a, b} {
		if text := refusal(t, g.proxy, lobbyHost); !strings.Contains(text, "Back at 18:00") {
			t.Fatalf("a new login was told %q", text)
		}
		p := joinAs(t, g.proxy, lobbyHost, "admin")
		if err := p.echoed(); err != nil {
			t.Fatalf("the bypassed name: %v", err)
		}
		_ = p.c.Close()
	}
	for i, s := range held {
		if !s.alive() {
			t.Fatalf("live session %d stopped flowing during maintenance", i)
		}
	}
	t.Logf("figure: %d live sessions byte-exact through maintenance (set %v ago)", len(held), time.Since(set).Round(time.Millisecond))
	cleared := time.Now()
	if code, out := gateLite(a, "s3cret", "maintenance", "--route", lobbyHost, "--off"); code != 0 {
		t.Fatalf("clear: %d %s", code, out)
	}
	until(t, "joins restored on both replicas", 2*time.Second, func() bool {
		sa, _, okA := join(t, a.proxy, lobbyHost)
		sb, _, okB := join(t, b.proxy, lobbyHost)
		for _, s := range []*session{sa, sb} {
			if s != nil {
				_ = s.c.Close()
			}
		}
		return okA && okB
	})
	t.Logf("figure: maintenance cleared: joins restored on both replicas %v after the write began", time.Since(cleared).Round(time.Millisecond))
	concurrentWritesLoseNoKey(t, w, a, b)
}

// concurrentWritesLoseNoKey bans 20 names through each replica at once: every
// ban ends up in the ConfigMap and in both replicas' layers, whatever the
// conflicts on the ConfigMap's resourceVersion.
func concurrentWritesLoseNoKey(t *testing.T, w *kubeWorld, a, b *running) {
	t.Helper()
	var wg sync.WaitGroup
	for r, g := range []*running{a, b} {
		wg.Go(func() {
			for i := range 20 {
				if code, out := gateLite(g, "s3cret", "ban", fmt.Sprintf("p%d_%d", r, i)); code != 0 {
					t.Errorf("ban through replica %d: %d %s", r, code, out)
				}
			}
		})
	}
	wg.Wait()
	cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(context.Background(), "gate-lite-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bans := 0
	for k := range cm.Data {
		if strings.HasPrefix(k, "ban.") {
			bans++
		}
	}
	if bans != 40 {
		t.Fatalf("the ConfigMap holds %d of the 40 bans written at once through two replicas", bans)
	}
	for _, g := range []*running{a, b} {
		until(t, "both replicas hold the 40 bans", 2*time.Second, func() bool {
			_, body := g.get(admin.PathOperator)
			var l admin.Layer
			return json.Unmarshal([]byte(body), &l) == nil && len(l.Entries) == 40
		})
	}
	t.Logf("figure: 40 bans written at once through 2 replicas: 40 in the ConfigMap and in both layers")
}
