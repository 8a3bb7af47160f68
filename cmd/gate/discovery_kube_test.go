package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/admin"
)

// These tests run the whole proxy, two replicas of it, against a real
// kube-apiserver (scripts/test.sh starts one) with real backends on addresses
// of the test's network namespace. Each prints the figures issue 19 asks for
// as "figure:" lines.

// kubeWorld is one namespace of the real API server and the backends its
// EndpointSlices point at.
type kubeWorld struct {
	t          *testing.T
	kubeconfig string
	cs         *kubernetes.Clientset
	ns         string
	port       int32
	backends   []*mctest.Backend // backends[i] listens on addrs[i]:port
	addrs      []string
}

func newKubeWorld(t *testing.T, backends int) *kubeWorld {
	t.Helper()
	kubeconfig := os.Getenv("GATETEST_KUBECONFIG")
	lo := os.Getenv("GATETEST_LO_ADDRS")
	if kubeconfig == "" || lo == "" {
		t.Skip("needs a kube-apiserver and test addresses on lo: run scripts/test.sh (GATETEST_KUBECONFIG, GATETEST_LO_ADDRS)")
	}
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	// The test's own connections end with it (goleak): CloseIdleConnections
	// does not reach client-go's http2 connections, so every one is closed.
	var mu sync.Mutex
	var conns []net.Conn
	rc.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
		return c, err
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfigAndClient(rc, hc)
	if err != nil {
		t.Fatal(err)
	}
	w := &kubeWorld{t: t, kubeconfig: kubeconfig, cs: cs}
	// 10.9.0.11-10.9.0.25 are the kubernetes tests' share of the addresses.
	for _, a := range strings.Split(lo, ",") {
		if n, _ := strconv.Atoi(a[strings.LastIndexByte(a, '.')+1:]); n >= 11 && n <= 25 {
			w.addrs = append(w.addrs, a)
		}
	}
	if len(w.addrs) < max(backends, 1) {
		t.Skipf("needs %d test addresses in 10.9.0.11-10.9.0.25, GATETEST_LO_ADDRS has %d", backends, len(w.addrs))
	}
	// Without backends the test starts its own servers on any of them.
	if backends > 0 {
		w.addrs = w.addrs[:backends]
		w.listen()
	}
	w.ns = fmt.Sprintf("e2e-%d", rand.Uint32())
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// listen starts one backend per address, all on one port: an EndpointSlice
// names one port for all its endpoints.
func (w *kubeWorld) listen() {
	for try := 0; ; try++ {
		first := mctest.NewBackend(w.t, mctest.Options{Addr: net.JoinHostPort(w.addrs[0], "0")})
		_, p, _ := net.SplitHostPort(first.Addr())
		port, _ := strconv.Atoi(p)
		bs := []*mctest.Backend{first}
		for _, a := range w.addrs[1:] {
			b, err := mctest.Start(mctest.Options{Addr: net.JoinHostPort(a, p)})
			if err != nil {
				break // the port is taken on that address: try another
			}
			w.t.Cleanup(b.Close)
			bs = append(bs, b)
		}
		if len(bs) == len(w.addrs) {
			w.backends, w.port = bs, int32(port)
			return
		}
		if try == 5 {
			w.t.Fatal("no port free on every test address")
		}
	}
}

func (w *kubeWorld) service(name string, ann map[string]string) {
	w.t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns, Annotations: ann},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone,
			Ports: []corev1.ServicePort{{Name: "minecraft", Port: 25565}}},
	}
	if _, err := w.cs.CoreV1().Services(w.ns).Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

// slice writes the Service's EndpointSlice with the first n backends, those in
// notReady not ready, and returns when the write returned.
func (w *kubeWorld) slice(svc string, n int, notReady ...int) time.Time {
	w.t.Helper()
	es := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: svc + "-1", Namespace: w.ns,
			Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("minecraft"), Port: ptr(w.port)}},
	}
	for i := range n {
		ready := true
		for _, nr := range notReady {
			ready = ready && nr != i
		}
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{w.addrs[i]},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(ready)}})
	}
	ctx := context.Background()
	api := w.cs.DiscoveryV1().EndpointSlices(w.ns)
	_, err := api.Update(ctx, es, metav1.UpdateOptions{})
	if err != nil {
		_, err = api.Create(ctx, es, metav1.CreateOptions{})
	}
	if err != nil {
		w.t.Fatal(err)
	}
	return time.Now()
}

func ptr[T any](v T) *T { return &v }

// gate starts one replica watching the world's namespace through kubeconfig.
func (w *kubeWorld) gate(kubeconfig string) *running { return w.gateWith(kubeconfig, "") }

// gateWith is gate with extra lines of the config key (two-space indented).
func (w *kubeWorld) gateWith(kubeconfig, extra string) *running {
	return startGate(w.t, fmt.Sprintf(`config:
  bind: 127.0.0.1:0
  lite:
    enabled: true
    shutdownGrace: 0s
    routes: []
    discovery:
      kubernetes:
        enabled: true
        kubeconfig: %s
        namespace: %s
%sapi:
  enabled: true
  bind: 127.0.0.1:0
  token: s3cret
`, kubeconfig, w.ns, extra), "s3cret")
}

// logins returns each backend's login count.
func (w *kubeWorld) logins() []int64 {
	out := make([]int64, len(w.backends))
	for i, b := range w.backends {
		out[i] = b.Logins()
	}
	return out
}

// session is a joined player whose bytes are echoed by its backend.
type session struct {
	c net.Conn
}

// join logs in through proxy and returns the session once its backend echoed
// the login; ok is false when the proxy answered anything else.
func join(t *testing.T, proxy, host string) (*session, string, bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	pre := mctest.LoginPreamble(765, host, "Steve")
	if _, err := c.Write(pre); err != nil {
		t.Fatal(err)
	}
	cl := mctest.NewClient(c)
	got := make([]byte, len(pre))
	if _, err := io.ReadFull(cl.R, got[:1]); err != nil {
		_ = c.Close()
		return nil, "closed: " + err.Error(), false
	}
	if got[0] != pre[0] { // not the echo: a Disconnect frame
		_ = c.Close()
		return nil, "refused", false
	}
	if _, err := io.ReadFull(cl.R, got[1:]); err != nil || string(got) != string(pre) {
		_ = c.Close()
		return nil, fmt.Sprintf("bad echo: %v", err), false
	}
	_ = c.SetDeadline(time.Time{})
	t.Cleanup(func() { _ = c.Close() })
	return &session{c: c}, "", true
}

// refusal logs in and returns the Disconnect text.
func refusal(t *testing.T, proxy, host string) string {
	t.Helper()
	c := mctest.Dial(t, proxy)
	_ = c.Conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Conn.Write(mctest.LoginPreamble(765, host, "Steve")); err != nil {
		t.Fatal(err)
	}
	text, err := c.Disconnect()
	if err != nil {
		return "no disconnect: " + err.Error()
	}
	return text
}

// alive reports whether the session still carries bytes both ways.
func (s *session) alive() bool {
	_ = s.c.SetDeadline(time.Now().Add(5 * time.Second))
	defer func() { _ = s.c.SetDeadline(time.Time{}) }()
	msg := []byte("ping")
	if _, err := s.c.Write(msg); err != nil {
		return false
	}
	got := make([]byte, len(msg))
	_, err := io.ReadFull(s.c, got)
	return err == nil && string(got) == string(msg)
}

// until polls cond and returns how long it took to hold.
func until(t *testing.T, what string, d time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	mctest.WaitFor(t, what, d, cond)
	return time.Since(start)
}

func TestKubernetesServiceIsABalancedRouteThroughTwoReplicas(t *testing.T) {
	w := newKubeWorld(t, 5)
	const host = "lobby.example.com"
	w.service("lobby", map[string]string{"gate.minekube.com/hosts": host, "gate.minekube.com/strategy": "round-robin"})
	replicas := []*running{w.gate(w.kubeconfig), w.gate(w.kubeconfig)}

	// 3 ready endpoints: logins through both replicas reach all 3.
	wrote := w.slice("lobby", 3)
	var held []*session
	reached := func(backends ...int) func() bool {
		return func() bool {
			for _, g := range replicas {
				if s, _, ok := join(t, g.proxy, host); ok {
					held = append(held, s)
				}
			}
			l := w.logins()
			for _, i := range backends {
				if l[i] == 0 {
					return false
				}
			}
			return true
		}
	}
	// Logins through either replica, until every backend has had one and both
	// replicas route the host: each replica's informers see the write on their own.
	until(t, "logins on all 3 backends through both replicas", 10*time.Second, func() bool {
		return reached(0, 1, 2)() && routeBackends(t, replicas[0], host) == 3 && routeBackends(t, replicas[1], host) == 3
	})
	t.Logf("figure: 3 endpoints: logins reached all 3 through 2 replicas %v after the EndpointSlice write", time.Since(wrote).Round(time.Millisecond))
	for len(held) < 100 {
		g := replicas[len(held)%2]
		s, why, ok := join(t, g.proxy, host)
		if !ok {
			t.Fatalf("login %d: %s", len(held), why)
		}
		held = append(held, s)
	}

	// Scale to 5: the new backends get players; back to 3: nothing dropped.
	before := w.logins()
	wrote = w.slice("lobby", 5)
	until(t, "logins on the 2 new backends", 10*time.Second, func() bool {
		reached()()
		l := w.logins()
		return l[3] > before[3] && l[4] > before[4]
	})
	t.Logf("figure: scaled 3 -> 5: new backends got players %v after the write", time.Since(wrote).Round(time.Millisecond))
	w.slice("lobby", 3)
	until(t, "the scale-down to apply", 10*time.Second, func() bool {
		return routeBackends(t, replicas[0], host) == 3 && routeBackends(t, replicas[1], host) == 3
	})
	dropped := 0
	for _, s := range held {
		if !s.alive() {
			dropped++
		}
	}
	t.Logf("figure: %d live sessions held across 3 -> 5 -> 3: %d dropped", len(held), dropped)
	if dropped != 0 || len(held) < 100 {
		t.Fatalf("%d of %d sessions dropped", dropped, len(held))
	}

	// Backend 1 turns not ready: its live sessions stay, new players avoid it.
	onOne := w.backends[1].Active()
	w.slice("lobby", 3, 1)
	until(t, "the not-ready endpoint to leave", 10*time.Second, func() bool {
		return routeBackends(t, replicas[0], host) == 2 && routeBackends(t, replicas[1], host) == 2
	})
	before = w.logins()
	for i := range 20 {
		if _, why, ok := join(t, replicas[i%2].proxy, host); !ok {
			t.Fatalf("login %d after not-ready: %s", i, why)
		}
	}
	after := w.logins()
	t.Logf("figure: endpoint not ready: %d of the next 20 logins went to it; its %d live sessions: %d still active",
		after[1]-before[1], onOne, w.backends[1].Active())
	if after[1] != before[1] || w.backends[1].Active() < onOne {
		t.Fatalf("not-ready backend: logins %d -> %d, active %d -> %d", before[1], after[1], onOne, w.backends[1].Active())
	}

	// The Service is deleted: its host is unknown within moments.
	if err := w.cs.CoreV1().Services(w.ns).Delete(context.Background(), "lobby", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	until(t, "unknown host after the delete", 10*time.Second, func() bool {
		return strings.Contains(refusal(t, replicas[0].proxy, host), "no server at this address") &&
			strings.Contains(refusal(t, replicas[1].proxy, host), "no server at this address")
	})
	t.Logf("figure: Service deleted: unknown-host Disconnect on both replicas %v after the delete", time.Since(deleted).Round(time.Millisecond))
}

// routeBackends counts the backends the replica's admin API lists for host's
// route.
func routeBackends(t *testing.T, g *running, host string) int {
	t.Helper()
	_, body := g.get("/api/v1/backends")
	var bs []admin.Backend
	if err := json.Unmarshal([]byte(body), &bs); err != nil {
		t.Fatalf("backends: %v\n%s", err, body)
	}
	n := 0
	for _, b := range bs {
		if b.Route == "kubernetes/"+host {
			n++
		}
	}
	return n
}

// viaForwarder writes a copy of the kubeconfig whose server is f.
func viaForwarder(t *testing.T, kubeconfig string) (string, *mctest.Forwarder) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var f *mctest.Forwarder
	for _, c := range cfg.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			f = mctest.NewForwarder(t, "tcp", u.Host)
		}
		u.Host = f.Addr()
		c.Server = u.String()
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path, f
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
	if err := w.cs.CoreV1().Services(w.ns).Delete(context.Background(), "games", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	served, failed := 0, 0
	pace := time.NewTicker(500 * time.Millisecond) // a round of logins twice a second
	defer pace.Stop()
	for ; time.Since(down) < outage; <-pace.C {
		for _, g := range replicas {
			for _, h := range []string{"lobby.example.com", "games.example.com"} {
				if s, _, ok := join(t, g.proxy, h); ok {
					_ = s.c.Close()
					served++
				} else {
					failed++
				}
			}
		}
	}
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
