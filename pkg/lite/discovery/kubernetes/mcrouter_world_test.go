package kubernetes_test

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/discovery/kubernetes"
	"go.minekube.com/gate/pkg/lite/wake/engines"
)

// The players' results a case asserts besides a backend's name.
const (
	unknownHost = "no server here"     // config.lite.disconnect.unknownHost below
	unavailable = "server unavailable" // config.lite.disconnect.unavailable below
	starting    = "starting"           // the held login's text when its server did not start in time
)

const mcProtocol = 767

// mcWorld is what mc-router's cases run on: the real API server and named
// backends on the test addresses, which Services reach through their
// EndpointSlices, an ExternalName, or proxyServerName.
type mcWorld struct {
	kube     *enginetest.Kube
	backends map[string]*mctest.Backend
	names    []string // backends' names, in a fixed order
}

// newMCWorld starts the backends: "pod" and "other" on one address (a
// slice's ports pick one of them), "ext" and "ext2" for ExternalNames,
// "proxy" for proxyServerName, and "proxy25565" on port 25565, which a
// proxyServerName without a port means.
func newMCWorld(t *testing.T) *mcWorld {
	t.Helper()
	k := enginetest.NeedKube(t)
	addrs := enginetest.Addrs(t, enginetest.KubeFirst, enginetest.KubeLast, 5)
	w := &mcWorld{kube: k, backends: map[string]*mctest.Backend{}}
	listen := func(name, addr, port string) {
		w.backends[name] = mctest.NewBackend(t, mctest.Options{Addr: net.JoinHostPort(addr, port),
			Status: mctest.StatusJSON(name, 0, 20)})
		w.names = append(w.names, name)
	}
	listen("pod", addrs[0], "0")
	listen("other", addrs[0], "0")
	listen("proxy", addrs[3], "0")
	// An ExternalName changes, its Service's port does not: ext and ext2
	// share a port.
	for try := 0; ; try++ {
		ext := mctest.NewBackend(t, mctest.Options{Addr: net.JoinHostPort(addrs[1], "0"), Status: mctest.StatusJSON("ext", 0, 20)})
		_, port, _ := net.SplitHostPort(ext.Addr())
		ext2, err := mctest.Start(mctest.Options{Addr: net.JoinHostPort(addrs[2], port), Status: mctest.StatusJSON("ext2", 0, 20)})
		if err == nil {
			t.Cleanup(ext2.Close)
			w.backends["ext"], w.backends["ext2"] = ext, ext2
			w.names = append(w.names, "ext", "ext2")
			break
		}
		if try == 5 {
			t.Fatal("no port free on two test addresses")
		}
	}
	// The last address of the share: other packages' tests listen on random ports.
	listen("proxy25565", addrs[len(addrs)-1], "25565")
	return w
}

// host and port of a named backend.
func (w *mcWorld) host(name string) string {
	h, _, _ := net.SplitHostPort(w.backends[name].Addr())
	return h
}
func (w *mcWorld) port(name string) int32 {
	_, p, _ := net.SplitHostPort(w.backends[name].Addr())
	n, _ := strconv.Atoi(p)
	return int32(n)
}

// mcProxy is one proxy watching one namespace, wired as `gate` wires it.
type mcProxy struct {
	*lite.Lite
	addr string
	ns   string
	logs *mctest.Logs
}

const mcConfig = `
config:
  lite:
    enabled: true
    shutdownGrace: 0s
    disconnect:
      unknownHost: ` + unknownHost + `
      unavailable: ` + unavailable + `
    discovery:
      kubernetes: {enabled: true, kubeconfig: %q, namespace: %s}
`

func (w *mcWorld) proxy(t *testing.T) *mcProxy {
	t.Helper()
	ns := w.kube.Namespace(t)
	cfg, _, err := config.ParseEnv(fmt.Appendf(nil, mcConfig, w.kube.Kubeconfig, ns), "config.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &mctest.Logs{}
	log := logs.Logger(0)
	e := engines.New(cfg)
	t.Cleanup(e.Close) // after the proxy, registered later, has stopped
	l, err := lite.New(cfg, lite.Options{Seed: 1, Log: log, WakeTargets: e.Target})
	if err != nil {
		t.Fatal(err)
	}
	src := kubernetes.New(cfg.Lite.Discovery.Kubernetes, log.WithName("kubernetes"), kubernetes.Options{})
	_, addr := enginetest.ServeDiscovered(t, cfg, l, src, log)
	return &mcProxy{Lite: l, addr: addr, ns: ns, logs: logs}
}

// held is a login sent and not yet answered.
type held struct {
	c      *mctest.Client
	host   string
	before []int64
}

// send logs a player in for host.
func (w *mcWorld) send(t *testing.T, p *mcProxy, host string) *held {
	t.Helper()
	h := &held{c: mctest.Dial(t, p.addr), host: host, before: w.logins()}
	_ = h.c.SetDeadline(time.Now().Add(40 * time.Second))
	if _, err := h.c.Write(mctest.LoginPreamble(mcProtocol, host, "Steve")); err != nil {
		t.Fatal(err)
	}
	return h
}

// result is what the player got: the name of the backend that took the
// login (the backend echoes the handshake), or the proxy's refusal, as
// unknownHost, unavailable or starting.
func (w *mcWorld) result(t *testing.T, h *held) string {
	t.Helper()
	defer h.c.Close()
	id, payload, err := h.c.ReadFrame()
	if err != nil {
		return "closed: " + err.Error()
	}
	if bytes.Equal(wire.AppendFrame(nil, id, payload), mctest.Handshake(mcProtocol, h.host, wire.IntentLogin)) {
		var served string
		mctest.WaitFor(t, "the backend that echoed to count the login", 5*time.Second, func() bool {
			for i, n := range w.logins() {
				if n > h.before[i] {
					served = w.names[i]
					return true
				}
			}
			return false
		})
		return served
	}
	text, _, err := wire.ParseString(payload, 1<<16)
	if id != wire.IDLoginDisconnect || err != nil {
		return fmt.Sprintf("frame %d %q", id, payload)
	}
	for _, known := range []string{unknownHost, unavailable, starting} {
		if strings.Contains(text, known) {
			return known
		}
	}
	return text
}

func (w *mcWorld) logins() []int64 {
	out := make([]int64, len(w.names))
	for i, n := range w.names {
		out[i] = w.backends[n].Logins()
	}
	return out
}

// expect logs players in for host until one gets want (a Service's change
// takes a moment to reach the routes), and fails with the last result when
// none does within 10 s.
func (w *mcWorld) expect(t *testing.T, p *mcProxy, host, want string) {
	t.Helper()
	var got string
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		if got = w.result(t, w.send(t, p, host)); got == want {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("a player for %s got %q, want %q", host, got, want)
		case <-tick.C:
		}
	}
}

// apply creates svc, or updates the Service of its name to it.
func (w *mcWorld) apply(t *testing.T, ns string, svc *corev1.Service) {
	t.Helper()
	api := w.kube.Admin.CoreV1().Services(ns)
	svc = svc.DeepCopy()
	svc.Namespace = ns
	cur, err := api.Get(t.Context(), svc.Name, metav1.GetOptions{})
	if err != nil {
		if _, err := api.Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create service %s: %v", svc.Name, err)
		}
		return
	}
	svc.ResourceVersion = cur.ResourceVersion
	if svc.Spec.Type != corev1.ServiceTypeExternalName && cur.Spec.Type != corev1.ServiceTypeExternalName {
		// What the API server allocated stays.
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = cur.Spec.ClusterIP, cur.Spec.ClusterIPs
		svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = cur.Spec.IPFamilies, cur.Spec.IPFamilyPolicy
	}
	if _, err := api.Update(t.Context(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update service %s: %v", svc.Name, err)
	}
}

// endpoints writes the EndpointSlice the controller would write for the
// Service svc: one ready endpoint on addr with ports, as "name" -> port.
func (w *mcWorld) endpoints(t *testing.T, ns, svc, addr string, ports map[string]int32) {
	t.Helper()
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: svc + "-1", Namespace: ns, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{addr}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
	}
	for name, port := range ports {
		es.Ports = append(es.Ports, discoveryv1.EndpointPort{Name: ptr.To(name), Port: ptr.To(port), Protocol: ptr.To(corev1.ProtocolTCP)})
	}
	if _, err := w.kube.Admin.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), es, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create slice of %s: %v", svc, err)
	}
}

// statefulSet creates a StatefulSet serving svc with replicas (no
// controller runs: only its scale changes).
func (w *mcWorld) statefulSet(t *testing.T, ns, name string, replicas int32) {
	t.Helper()
	labels := map[string]string{"app": name}
	_, err := w.kube.Admin.AppsV1().StatefulSets(ns).Create(t.Context(), &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(replicas), ServiceName: name, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "minecraft", Image: "minecraft"}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

func (w *mcWorld) replicas(t *testing.T, ns, name string) int32 {
	t.Helper()
	s, err := w.kube.Admin.AppsV1().StatefulSets(ns).GetScale(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Spec.Replicas
}
