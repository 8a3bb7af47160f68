package kubernetes

import (
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"

	"go.minekube.com/gate/internal/enginetest"
)

// The tests in this file run against a real kube-apiserver. No controllers
// run there, so the tests write EndpointSlices themselves, and since
// namespaces are never fully deleted, each test makes its own.

// kubeEnv is a test's view of the API server.
type kubeEnv struct {
	kube       *enginetest.Kube
	kubeconfig string
	client     kubernetes.Interface
	addrs      []string // addresses endpoints may carry (not loopback: the API server rejects it)
}

func newKubeEnv(t *testing.T) *kubeEnv {
	t.Helper()
	k := enginetest.NeedKube(t)
	addrs := enginetest.Addrs(t, enginetest.KubeFirst, enginetest.KubeLast, 5)
	return &kubeEnv{kube: k, kubeconfig: k.Kubeconfig, client: k.Admin, addrs: addrs}
}

// namespace creates a fresh namespace for one test.
func (e *kubeEnv) namespace(t *testing.T) string { return e.kube.Namespace(t) }

func (e *kubeEnv) createService(t *testing.T, ns, name string, ann, labels map[string]string, headless bool) {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann, Labels: labels},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "minecraft", Port: 25565, Protocol: corev1.ProtocolTCP}},
		},
	}
	if headless {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	if _, err := e.client.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create service %s/%s: %v", ns, name, err)
	}
}

// applySlice creates or replaces a slice and returns when the API server
// has accepted the write.
func (e *kubeEnv) applySlice(t *testing.T, es *discoveryv1.EndpointSlice) {
	t.Helper()
	api := e.client.DiscoveryV1().EndpointSlices(es.Namespace)
	cur, err := api.Get(t.Context(), es.Name, metav1.GetOptions{})
	if err != nil {
		if _, err := api.Create(t.Context(), es, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create slice %s/%s: %v", es.Namespace, es.Name, err)
		}
		return
	}
	es = es.DeepCopy()
	es.ResourceVersion = cur.ResourceVersion
	if _, err := api.Update(t.Context(), es, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update slice %s/%s: %v", es.Namespace, es.Name, err)
	}
}

// readySlice is a slice of n ready endpoints on the env's addresses.
func (e *kubeEnv) readySlice(ns, svc, name string, ports []discoveryv1.EndpointPort, n int) *discoveryv1.EndpointSlice {
	eps := make([]endpoint, 0, n)
	for _, a := range e.addrs[:n] {
		eps = append(eps, ready(a))
	}
	return slice(ns, svc, name, discoveryv1.AddressTypeIPv4, ports, eps...)
}

// wantAddrs is e.addrs[:n] on port, as a route lists them.
func (e *kubeEnv) wantAddrs(n int, port uint16) []string {
	var out []netip.AddrPort
	for _, a := range e.addrs[:n] {
		out = append(out, netip.AddrPortFrom(netip.MustParseAddr(a), port))
	}
	slices.SortFunc(out, netip.AddrPort.Compare)
	strs := make([]string, 0, n)
	for _, a := range out {
		strs = append(strs, a.String())
	}
	return strs
}

// runKube runs a source on the env's kubeconfig, watching ns.
func (e *kubeEnv) runKube(t *testing.T, ns string, sel string) *recordingSink {
	t.Helper()
	sink := &recordingSink{}
	src := New(config.KubernetesDiscovery{Enabled: true, Kubeconfig: e.kubeconfig, Namespace: ns, LabelSelector: sel}, testLogger(t), Options{})
	runSource(t, src, sink)
	return sink
}

// waitLatency waits for cond on the route with origin and returns how long
// after since the Replace that satisfied it arrived.
func waitLatency(t *testing.T, sink *recordingSink, what, origin string, since time.Time, cond func(discovery.Route, bool) bool) time.Duration {
	t.Helper()
	i := sink.waitRoute(t, what, 2*time.Second, origin, cond)
	return sink.arrivedAt(i).Sub(since)
}

func hasAddrs(want []string) func(discovery.Route, bool) bool {
	return func(r discovery.Route, ok bool) bool { return ok && slices.Equal(addrs(r), want) }
}

var mcPorts = []discoveryv1.EndpointPort{port("minecraft", 25565)}

func TestKubeSliceScaleReachesSinkWithin2s(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	sink := e.runKube(t, ns, "")
	origin := "kubernetes " + ns + "/mc"
	sink.waitRoute(t, "the first (empty) set", 2*time.Second, origin, func(_ discovery.Route, ok bool) bool { return !ok })

	e.createService(t, ns, "mc", map[string]string{AnnotationHosts: "mc.example.com"}, nil, false)
	start := time.Now()
	e.applySlice(t, e.readySlice(ns, "mc", "mc-1", mcPorts, 3))
	l3 := waitLatency(t, sink, "3 backends", origin, start, hasAddrs(e.wantAddrs(3, 25565)))

	start = time.Now()
	e.applySlice(t, e.readySlice(ns, "mc", "mc-1", mcPorts, 5))
	l5 := waitLatency(t, sink, "5 backends", origin, start, hasAddrs(e.wantAddrs(5, 25565)))

	start = time.Now()
	e.applySlice(t, e.readySlice(ns, "mc", "mc-1", mcPorts, 3))
	lBack := waitLatency(t, sink, "3 backends again", origin, start, hasAddrs(e.wantAddrs(3, 25565)))
	t.Logf("write-to-Replace latency: 3 backends %v, scaled to 5 %v, back to 3 %v", l3, l5, lBack)

	r, _ := sink.route(origin)
	if !slices.Equal(r.Hosts, []string{"mc.example.com"}) || r.KeyPrefix != KeyPrefix || r.Default {
		t.Errorf("route %+v", r)
	}
	if n := sink.staleCount(); n != 0 {
		t.Errorf("%d Stale calls without an outage", n)
	}
}

func TestKubeNotReadyAndTerminatingEndpointsAreDropped(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	sink := e.runKube(t, ns, "")
	origin := "kubernetes " + ns + "/mc"
	e.createService(t, ns, "mc", map[string]string{AnnotationHosts: "mc.example.com"}, nil, false)
	es := e.readySlice(ns, "mc", "mc-1", mcPorts, 3)
	e.applySlice(t, es)
	sink.waitRoute(t, "3 backends", 2*time.Second, origin, hasAddrs(e.wantAddrs(3, 25565)))

	es.Endpoints[0].Conditions = discoveryv1.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(false)}
	e.applySlice(t, es)
	sink.waitRoute(t, "the not-ready endpoint dropped", 2*time.Second, origin, func(r discovery.Route, ok bool) bool {
		return ok && len(r.Backends) == 2 && !slices.Contains(addrs(r), e.wantAddrs(1, 25565)[0])
	})

	// Terminating but still serving: its live sessions go on, new players go elsewhere.
	es.Endpoints[1].Conditions = discoveryv1.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(true), Terminating: ptr.To(true)}
	e.applySlice(t, es)
	sink.waitRoute(t, "the terminating endpoint dropped", 2*time.Second, origin, func(r discovery.Route, ok bool) bool {
		return ok && slices.Equal(addrs(r), []string{e.addrs[2] + ":25565"})
	})
}

func TestKubeDeletedServiceRouteGoesWhileItsSlicesRemain(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	sink := e.runKube(t, ns, "")
	origin := "kubernetes " + ns + "/mc"
	e.createService(t, ns, "mc", map[string]string{AnnotationHosts: "mc.example.com"}, nil, false)
	e.applySlice(t, e.readySlice(ns, "mc", "mc-1", mcPorts, 3))
	sink.waitRoute(t, "3 backends", 2*time.Second, origin, hasAddrs(e.wantAddrs(3, 25565)))

	start := time.Now()
	if err := e.client.CoreV1().Services(ns).Delete(t.Context(), "mc", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	l := waitLatency(t, sink, "the route gone", origin, start, func(_ discovery.Route, ok bool) bool { return !ok })
	t.Logf("delete-to-Replace latency %v", l)
	if _, err := e.client.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "mc-1", metav1.GetOptions{}); err != nil {
		t.Errorf("the slice was expected to outlive its Service here (no controllers): %v", err)
	}
}

func TestKubeAnnotationsPortsAndHeadless(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	sink := e.runKube(t, ns, "")
	two := []discoveryv1.EndpointPort{port("rcon", 25575), port("game", 25570)}

	e.createService(t, ns, "router", map[string]string{annotationMCRouterHosts: "a.example.com, b.example.com"}, nil, false)
	e.applySlice(t, e.readySlice(ns, "router", "router-1", mcPorts, 1))
	e.createService(t, ns, "lobby", map[string]string{annotationMCRouterDefault: "true"}, nil, false)
	e.applySlice(t, e.readySlice(ns, "lobby", "lobby-1", mcPorts, 2))
	e.createService(t, ns, "byname", map[string]string{AnnotationHosts: "byname.example.com", AnnotationPort: "game"}, nil, false)
	e.applySlice(t, e.readySlice(ns, "byname", "byname-1", two, 1))
	e.createService(t, ns, "bynumber", map[string]string{AnnotationHosts: "bynumber.example.com", AnnotationPort: "25599"}, nil, false)
	e.applySlice(t, e.readySlice(ns, "bynumber", "bynumber-1", two, 1))
	e.createService(t, ns, "headless", map[string]string{AnnotationHosts: "headless.example.com", KeyPrefix + "strategy": "random"}, nil, true)
	e.applySlice(t, e.readySlice(ns, "headless", "headless-1", mcPorts, 3))
	e.createService(t, ns, "plain", nil, nil, false)
	e.applySlice(t, e.readySlice(ns, "plain", "plain-1", mcPorts, 1))
	e.createService(t, ns, "noslices", map[string]string{AnnotationHosts: "noslices.example.com"}, nil, false)

	o := func(name string) string { return "kubernetes " + ns + "/" + name }
	want := []discovery.Route{
		{Origin: o("byname"), Namespace: ns, Hosts: []string{"byname.example.com"}, Backends: backends(e.wantAddrs(1, 25570)...), KeyPrefix: KeyPrefix},
		{Origin: o("bynumber"), Namespace: ns, Hosts: []string{"bynumber.example.com"}, Backends: backends(e.wantAddrs(1, 25599)...), KeyPrefix: KeyPrefix},
		{Origin: o("headless"), Namespace: ns, Hosts: []string{"headless.example.com"}, Backends: backends(e.wantAddrs(3, 25565)...),
			Settings: map[string]string{"strategy": "random"}, KeyPrefix: KeyPrefix},
		{Origin: o("lobby"), Namespace: ns, Hosts: []string{"*"}, Default: true, Backends: backends(e.wantAddrs(2, 25565)...), KeyPrefix: KeyPrefix},
		{Origin: o("noslices"), Namespace: ns, Hosts: []string{"noslices.example.com"}, Backends: backends(), KeyPrefix: KeyPrefix},
		{Origin: o("router"), Namespace: ns, Hosts: []string{"a.example.com", "b.example.com"}, Backends: backends(e.wantAddrs(1, 25565)...), KeyPrefix: KeyPrefix},
	}
	var got []discovery.Route
	waitFor(t, "the expected set", 2*time.Second, func() bool {
		got, _, _ = sink.last()
		return reflect.DeepEqual(withoutCreated(t, got), want)
	}, func() string { return fmt.Sprintf("\n got %+v\nwant %+v", got, want) })
}

// withoutCreated returns rs with their creation times zeroed, after checking every
// route carries its Service's (host claims are settled by it).
func withoutCreated(t *testing.T, rs []discovery.Route) []discovery.Route {
	t.Helper()
	out := slices.Clone(rs)
	for i := range out {
		if out[i].Created.IsZero() {
			t.Errorf("route %s has no creation time", out[i].Origin)
		}
		out[i].Created = time.Time{}
	}
	return out
}

func TestKubeSameNameInTwoNamespacesIsTwoRoutes(t *testing.T) {
	e := newKubeEnv(t)
	ns1, ns2 := e.namespace(t), e.namespace(t)
	// Every namespace is watched; the label keeps other tests' Services out.
	run := map[string]string{"gate-test-run": ns1}
	sink := e.runKube(t, "", "gate-test-run="+ns1)
	e.createService(t, ns1, "mc", map[string]string{AnnotationHosts: "one.example.com"}, run, false)
	e.createService(t, ns2, "mc", map[string]string{AnnotationHosts: "two.example.com"}, run, false)
	e.applySlice(t, e.readySlice(ns1, "mc", "mc-1", mcPorts, 1))
	e.applySlice(t, e.readySlice(ns2, "mc", "mc-1", mcPorts, 2))
	sink.waitRoute(t, "the first namespace's route", 2*time.Second, "kubernetes "+ns1+"/mc", hasAddrs(e.wantAddrs(1, 25565)))
	sink.waitRoute(t, "the second namespace's route", 2*time.Second, "kubernetes "+ns2+"/mc", hasAddrs(e.wantAddrs(2, 25565)))
	if routes, _, _ := sink.last(); len(routes) != 2 {
		t.Errorf("%d routes, want 2: %+v", len(routes), routes)
	}
}

// A workload scaled to zero keeps its Service and an emptied slice: the
// route stays, with no backends and its wake keys, so that a login can wake
// it and a ping be answered as asleep.
func TestKubeScaledToZeroKeepsRouteAndWakeKeys(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	sink := e.runKube(t, ns, "")
	origin := "kubernetes " + ns + "/survival"
	wakeKeys := map[string]string{
		"wake": "statefulset/survival", "holdFor": "25s", "idleAfter": "10m", "asleepMotd": "§7asleep: join to wake",
	}
	ann := map[string]string{AnnotationHosts: "survival.example.com"}
	for k, v := range wakeKeys {
		ann[KeyPrefix+k] = v
	}
	e.createService(t, ns, "survival", ann, nil, false)
	e.applySlice(t, e.readySlice(ns, "survival", "survival-1", mcPorts, 2))
	sink.waitRoute(t, "2 backends", 2*time.Second, origin, hasAddrs(e.wantAddrs(2, 25565)))

	e.applySlice(t, slice(ns, "survival", "survival-1", discoveryv1.AddressTypeIPv4, mcPorts))
	sink.waitRoute(t, "the route with no backends", 2*time.Second, origin, func(r discovery.Route, ok bool) bool {
		return ok && len(r.Backends) == 0
	})
	got, _ := sink.route(origin)
	if !reflect.DeepEqual(got.Settings, wakeKeys) || got.Namespace != ns || !slices.Equal(got.Hosts, []string{"survival.example.com"}) {
		t.Errorf("scaled-to-zero route %+v, want settings %v in namespace %s", got, wakeKeys, ns)
	}

	e.applySlice(t, e.readySlice(ns, "survival", "survival-1", mcPorts, 1))
	sink.waitRoute(t, "1 backend after the wake", 2*time.Second, origin, hasAddrs(e.wantAddrs(1, 25565)))
}
