package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"go.minekube.com/gate/internal/enginetest"
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
	cs         kubernetes.Interface
	ns         string
	port       int32
	backends   []*mctest.Backend // backends[i] listens on addrs[i]:port
	addrs      []string
}

func newKubeWorld(t *testing.T, backends int) *kubeWorld {
	t.Helper()
	k := enginetest.NeedKube(t)
	w := &kubeWorld{t: t, kubeconfig: k.Kubeconfig, cs: k.Admin}
	w.addrs = enginetest.Addrs(t, enginetest.KubeFirst, enginetest.KubeLast, max(backends, 1))
	// Without backends the test starts its own servers on any of them.
	if backends > 0 {
		w.addrs = w.addrs[:backends]
		w.listen()
	}
	w.ns = k.Namespace(t)
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

// deleteService deletes a Service of the world.
func (w *kubeWorld) deleteService(name string) {
	w.t.Helper()
	if err := w.cs.CoreV1().Services(w.ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

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
		if b.Route == "kubernetes/"+host && b.Reason != "removed" { // a removed row keeps its players in view, not in the route
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
