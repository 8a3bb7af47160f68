package kubernetes_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// mc-router's own Kubernetes test cases (itzg/mc-router, server/k8s_test.go,
// named after its test and case), and the rules of its README and k8s.go
// that its tests leave out, each run through the whole proxy against the
// real API server: a Service written as in the case, a player logging in,
// the player's result asserted. Where mc-router's case dials the Service's
// ClusterIP, ours reaches the Service's pods ("pod", through the
// EndpointSlice the endpoints controller would write); its hosts a.com,
// b.com are handshake hosts here, never resolved.

// mcStep is one state of a case's Service "mc" and what players of each host
// get in it: a backend's name, or unknownHost, unavailable, starting.
type mcStep struct {
	svc  func(w *mcWorld) *corev1.Service // nil deletes the Service
	want map[string]string
}

type mcRouterKubeCase struct {
	name string
	// slice is the ports of the Service's EndpointSlice, by name, on the
	// address of "pod" and "other"; nil: "minecraft" on pod's port.
	slice func(w *mcWorld) map[string]int32
	steps []mcStep
	// run replaces steps for a case that is a sequence of events.
	run func(t *testing.T, w *mcWorld, p *mcProxy)
}

// svc is the Service "mc" with annotations ann and ports; none: one port
// "minecraft" 25565, as a Minecraft Service usually has.
func svc(ann map[string]string, ports ...corev1.ServicePort) *corev1.Service {
	if len(ports) == 0 {
		ports = []corev1.ServicePort{{Name: "minecraft", Port: 25565, Protocol: corev1.ProtocolTCP}}
	}
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "mc", Annotations: ann},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports}}
}

// hosts is a Service "mc" of mc-router's externalServerName.
func hosts(list string) func(*mcWorld) *corev1.Service {
	return func(*mcWorld) *corev1.Service { return svc(map[string]string{annExternalServerName: list}) }
}

// external is an ExternalName Service "mc" for list naming backend's
// address, on its port (named "minecraft", as mc-router's rule reads it).
func external(list, backend string) func(*mcWorld) *corev1.Service {
	return func(w *mcWorld) *corev1.Service {
		s := svc(map[string]string{annExternalServerName: list}, tcpPort("minecraft", w.port(backend)))
		s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, w.host(backend)
		return s
	}
}

// proxied is a Service "mc" for mc.example.com whose proxyServerName is
// what at(w) says.
func proxied(at func(w *mcWorld) string) func(*mcWorld) *corev1.Service {
	return func(w *mcWorld) *corev1.Service {
		return svc(map[string]string{annExternalServerName: "mc.example.com", annProxyServerName: at(w)})
	}
}

func tcpPort(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, Protocol: corev1.ProtocolTCP}
}

// mc-router's annotation names, spelled out: the test reads them as an
// operator writes them.
const (
	annExternalServerName = "mc-router.itzg.me/externalServerName"
	annDefaultServer      = "mc-router.itzg.me/defaultServer"
	annProxyServerName    = "mc-router.itzg.me/proxyServerName"
	annAutoScaleUp        = "mc-router.itzg.me/autoScaleUp"
	annAutoScaleDown      = "mc-router.itzg.me/autoScaleDown"
	annAsleepMOTD         = "mc-router.itzg.me/autoScaleAsleepMOTD"
	annLoadingMOTD        = "mc-router.itzg.me/autoScaleLoadingMOTD"
	annWaitTimeout        = "mc-router.itzg.me/autoScaleWaitTimeout"
)

func TestMCRouterKubeCases(t *testing.T) {
	w := newMCWorld(t)
	for _, c := range mcRouterKubeCases {
		t.Run(c.name, func(t *testing.T) {
			p := w.proxy(t)
			ports := map[string]int32{"minecraft": w.port("pod")}
			if c.slice != nil {
				ports = c.slice(w)
			}
			if c.run != nil {
				c.run(t, w, p)
				return
			}
			w.endpoints(t, p.ns, "mc", w.host("pod"), ports)
			for i, s := range c.steps {
				if s.svc == nil {
					if err := w.kube.Admin.CoreV1().Services(p.ns).Delete(t.Context(), "mc", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				} else {
					w.apply(t, p.ns, s.svc(w))
				}
				for host, want := range s.want {
					t.Logf("step %d: %s", i+1, host)
					w.expect(t, p, host, want)
				}
			}
		})
	}
}
