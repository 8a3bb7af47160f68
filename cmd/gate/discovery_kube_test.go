package main

import (
	"strings"
	"testing"
	"time"
)

// balanced is the state of TestKubernetesServiceIsABalancedRouteThroughTwoReplicas
// between its phases.
type balanced struct {
	t        *testing.T
	w        *kubeWorld
	replicas []*running
	held     []*session
}

const lobbyHost = "lobby.example.com"

func TestKubernetesServiceIsABalancedRouteThroughTwoReplicas(t *testing.T) {
	w := newKubeWorld(t, 5)
	w.service("lobby", map[string]string{"gate.minekube.com/hosts": lobbyHost, "gate.minekube.com/strategy": "round-robin"})
	b := &balanced{t: t, w: w, replicas: []*running{w.gate(w.kubeconfig), w.gate(w.kubeconfig)}}
	b.fill()
	b.scaleUpAndDown()
	b.notReady()
	b.deleteService()
}

// reached logs in once through each replica (keeping the sessions) and
// reports whether the given backends have had a login each.
func (b *balanced) reached(backends ...int) bool {
	for _, g := range b.replicas {
		if s, _, ok := join(b.t, g.proxy, lobbyHost); ok {
			b.held = append(b.held, s)
		}
	}
	l := b.w.logins()
	for _, i := range backends {
		if l[i] == 0 {
			return false
		}
	}
	return true
}

// routed reports whether both replicas route the host to n backends.
func (b *balanced) routed(n int) bool {
	return routeBackends(b.t, b.replicas[0], lobbyHost) == n && routeBackends(b.t, b.replicas[1], lobbyHost) == n
}

// fill: 3 ready endpoints: logins through both replicas reach all 3; then
// 100 players hold a session.
func (b *balanced) fill() {
	t := b.t
	wrote := b.w.slice("lobby", 3)
	// Logins through either replica, until every backend has had one and both
	// replicas route the host: each replica's informers see the write on their own.
	until(t, "logins on all 3 backends through both replicas", 10*time.Second, func() bool {
		return b.reached(0, 1, 2) && b.routed(3)
	})
	t.Logf("figure: 3 endpoints: logins reached all 3 through 2 replicas %v after the EndpointSlice write", time.Since(wrote).Round(time.Millisecond))
	for len(b.held) < 100 {
		g := b.replicas[len(b.held)%2]
		s, why, ok := join(t, g.proxy, lobbyHost)
		if !ok {
			t.Fatalf("login %d: %s", len(b.held), why)
		}
		b.held = append(b.held, s)
	}
}

// scaleUpAndDown: scale to 5: the new backends get players; back to 3:
// nothing dropped.
func (b *balanced) scaleUpAndDown() {
	t, w := b.t, b.w
	before := w.logins()
	wrote := w.slice("lobby", 5)
	until(t, "logins on the 2 new backends", 10*time.Second, func() bool {
		b.reached()
		l := w.logins()
		return l[3] > before[3] && l[4] > before[4]
	})
	t.Logf("figure: scaled 3 -> 5: new backends got players %v after the write", time.Since(wrote).Round(time.Millisecond))
	w.slice("lobby", 3)
	until(t, "the scale-down to apply", 10*time.Second, func() bool { return b.routed(3) })
	dropped := 0
	for _, s := range b.held {
		if !s.alive() {
			dropped++
		}
	}
	t.Logf("figure: %d live sessions held across 3 -> 5 -> 3: %d dropped", len(b.held), dropped)
	if dropped != 0 || len(b.held) < 100 {
		t.Fatalf("%d of %d sessions dropped", dropped, len(b.held))
	}
}

// notReady: backend 1 turns not ready: its live sessions stay, new players
// avoid it.
func (b *balanced) notReady() {
	t, w := b.t, b.w
	onOne := w.backends[1].Active()
	w.slice("lobby", 3, 1)
	until(t, "the not-ready endpoint to leave", 10*time.Second, func() bool { return b.routed(2) })
	before := w.logins()
	for i := range 20 {
		if _, why, ok := join(t, b.replicas[i%2].proxy, lobbyHost); !ok {
			t.Fatalf("login %d after not-ready: %s", i, why)
		}
	}
	after := w.logins()
	t.Logf("figure: endpoint not ready: %d of the next 20 logins went to it; its %d live sessions: %d still active",
		after[1]-before[1], onOne, w.backends[1].Active())
	if after[1] != before[1] || w.backends[1].Active() < onOne {
		t.Fatalf("not-ready backend: logins %d -> %d, active %d -> %d", before[1], after[1], onOne, w.backends[1].Active())
	}
}

// deleteService: the Service is deleted: its host is unknown within moments.
func (b *balanced) deleteService() {
	t := b.t
	b.w.deleteService("lobby")
	deleted := time.Now()
	until(t, "unknown host after the delete", 10*time.Second, func() bool {
		return strings.Contains(refusal(t, b.replicas[0].proxy, lobbyHost), "no server at this address") &&
			strings.Contains(refusal(t, b.replicas[1].proxy, lobbyHost), "no server at this address")
	})
	t.Logf("figure: Service deleted: unknown-host Disconnect on both replicas %v after the delete", time.Since(deleted).Round(time.Millisecond))
}

func TestKubernetesOutageKeepsRoutesServingAndConverges(t *testing.T) {
	w := newKubeWorld(t, 3)
	w.service("lobby", map[string]string{"gate.minekube.com/hosts": "lobby.example.com"})
	w.service("games", map[string]string{"mc-router.itzg.me/externalServerName": "games.example.com"})
	w.slice("lobby", 2)
	w.slice("games", 1)
	cut, f := viaForwarder(t, w.kubeconfig)
	replicas := []*running{w.gate(cut), w.gate(cut)}
	for _, g := range replicas {
		until(t, "both routes", 10*time.Second, func() bool {
			_, _, ok1 := join(t, g.proxy, "lobby.example.com")
			_, _, ok2 := join(t, g.proxy, "games.example.com")
			return ok1 && ok2
		})
	}

	outage := 30 * time.Second
	f.Cut()
	down := time.Now()
	for _, g := range replicas {
		until(t, "the source to say it is stale", 20*time.Second, func() bool {
			_, body := g.get("/api/v1/sources")
			return strings.Contains(body, `"stale": true`)
		})
	}
	// Changes while the API server is away: lobby gains its third backend,
	// games is deleted.
	w.slice("lobby", 3)
	w.deleteService("games")
	served, failed := loginRounds(t, replicas, down.Add(outage), "lobby.example.com", "games.example.com")
	t.Logf("figure: API server away %v: %d logins served by the last known routes, %d failed", outage, served, failed)
	if failed != 0 {
		t.Fatalf("%d logins failed during the outage", failed)
	}

	f.Restore()
	back := time.Now()
	for _, g := range replicas {
		until(t, "convergence after the outage", 20*time.Second, func() bool {
			return strings.Contains(refusal(t, g.proxy, "games.example.com"), "no server at this address") &&
				routeBackends(t, g, "lobby.example.com") == 3
		})
	}
	t.Logf("figure: API server back: both replicas converged %v after it returned", time.Since(back).Round(time.Millisecond))
}

// loginRounds logs in to each host through each replica, a round twice a
// second until end, and counts the logins served and failed.
func loginRounds(t *testing.T, replicas []*running, end time.Time, hosts ...string) (served, failed int) {
	pace := time.NewTicker(500 * time.Millisecond)
	defer pace.Stop()
	for ; time.Now().Before(end); <-pace.C {
		for _, g := range replicas {
			for _, h := range hosts {
				if s, _, ok := join(t, g.proxy, h); ok {
					_ = s.c.Close()
					served++
				} else {
					failed++
				}
			}
		}
	}
	return served, failed
}
