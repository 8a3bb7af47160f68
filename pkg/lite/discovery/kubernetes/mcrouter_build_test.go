package kubernetes

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"go.minekube.com/gate/pkg/lite/discovery"
)

// withSpec is service with a spec.
func withSpec(ann map[string]string, spec corev1.ServiceSpec) *corev1.Service {
	s := service("ns", "mc", ann)
	s.Spec = spec
	return s
}

func svcPorts(ports ...corev1.ServicePort) corev1.ServiceSpec {
	return corev1.ServiceSpec{Ports: ports}
}

func extName(name string, ports ...corev1.ServicePort) corev1.ServiceSpec {
	return corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: name, Ports: ports}
}

func mcRoute(backs []discovery.Backend, settings map[string]string) *discovery.Route {
	return &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backs, Settings: settings, KeyPrefix: KeyPrefix}
}

var hostA = map[string]string{annotationMCRouterHosts: "a"}

func with(ann map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range ann {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// mcRouterBuildCases are mc-router's rules read without an API server; the
// engine tests (mcRouterKubeCases) run them through the proxy.
var mcRouterBuildCases = []buildCase{
	{
		name: "externalName on the Service's minecraft port",
		svc:  withSpec(hostA, extName("mc.example.net.", corev1.ServicePort{Name: "minecraft", Port: 25570})),
		want: mcRoute(backends("mc.example.net:25570"), nil),
	},
	{
		name: "externalName without ports: 25565",
		svc:  withSpec(hostA, extName("10.1.2.3")),
		want: mcRoute(backends("10.1.2.3:25565"), nil),
	},
	{
		name: "externalName: mc-router port over minecraft, slices ignored",
		svc: withSpec(hostA, extName("mc.example.net", corev1.ServicePort{Name: "minecraft", Port: 1},
			corev1.ServicePort{Name: "mc-router", Port: 2})),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4, routeMC, ready("10.0.0.1"))},
		want:   mcRoute(backends("mc.example.net:2"), nil),
	},
	{
		name: "externalName: gate port by name",
		svc: withSpec(with(hostA, AnnotationPort, "game"), extName("mc.example.net",
			corev1.ServicePort{Name: "minecraft", Port: 1}, corev1.ServicePort{Name: "game", Port: 3})),
		want: mcRoute(backends("mc.example.net:3"), nil),
	},
	{
		name:    "externalName on loopback refused",
		svc:     withSpec(hostA, extName("127.0.0.1")),
		want:    mcRoute(backends(), nil),
		warning: "loopback",
	},
	{
		name:    "externalName localhost refused",
		svc:     withSpec(hostA, extName("LocalHost")),
		want:    mcRoute(backends(), nil),
		warning: "own host",
	},
	{
		name:   "proxyServerName host:port over the endpoints",
		svc:    service("ns", "mc", with(hostA, annotationMCRouterProxy, "velocity:25577")),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4, routeMC, ready("10.0.0.1"))},
		want:   mcRoute(backends("velocity:25577"), nil),
	},
	{
		name: "proxyServerName without port: 25565",
		svc:  service("ns", "mc", with(hostA, annotationMCRouterProxy, " velocity ")),
		want: mcRoute(backends("velocity:25565"), nil),
	},
	{
		name: "proxyServerName IPv6 without port",
		svc:  service("ns", "mc", with(hostA, annotationMCRouterProxy, "fd00::5")),
		want: mcRoute(backends("[fd00::5]:25565"), nil),
	},
	{
		name:    "proxyServerName with a bad port",
		svc:     service("ns", "mc", with(hostA, annotationMCRouterProxy, "velocity:99999")),
		want:    mcRoute(backends(), nil),
		warning: "no usable port",
	},
	{
		name: "slice: mc-router over minecraft",
		svc:  service("ns", "mc", hostA),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4,
			[]discoveryv1.EndpointPort{port("minecraft", 1), port("mc-router", 2)}, ready("10.0.0.1"))},
		want: mcRoute(backends("10.0.0.1:2"), nil),
	},
	{
		name: "slice: the Service's port 25565 by its name",
		svc:  withSpec(hostA, svcPorts(corev1.ServicePort{Name: "query", Port: 25566}, corev1.ServicePort{Name: "game", Port: 25565})),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4,
			[]discoveryv1.EndpointPort{port("query", 7), port("game", 8)}, ready("10.0.0.1"))},
		want: mcRoute(backends("10.0.0.1:8"), nil),
	},
	{
		name: "slice: a UDP Service port 25565 is not the game's",
		svc: withSpec(hostA, svcPorts(corev1.ServicePort{Name: "voice", Port: 25565, Protocol: corev1.ProtocolUDP},
			corev1.ServicePort{Name: "game", Port: 25566})),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4,
			[]discoveryv1.EndpointPort{port("game", 8), port("rcon", 9)}, ready("10.0.0.1"))},
		want:    mcRoute(backends(), nil),
		warning: "2 TCP ports",
	},
	{
		name: "autoScaleUp: the StatefulSet of the Service's name, with the MOTD and wait",
		svc: service("ns", "mc", with(hostA, annotationMCRouterScaleUp, "true", annotationMCRouterScaleDown, "False",
			annotationMCRouterAsleepMOTD, "yes: [asleep]", annotationMCRouterLoadingMOTD, "§eStarting…", annotationMCRouterWaitTimeout, "20s")),
		want: mcRoute(backends(), map[string]string{"wake": "statefulset/mc", "idleAfter": "never",
			"asleepMotd": `"yes: [asleep]"`, "loadingMotd": `"§eStarting…"`, "holdFor": "20s"}),
	},
	{
		name: "autoScaleDown alone wakes too",
		svc:  service("ns", "mc", with(hostA, annotationMCRouterScaleDown, "true")),
		want: mcRoute(backends(), map[string]string{"wake": "statefulset/mc"}),
	},
	{
		name:    "autoScaleDown without autoScaleUp",
		svc:     service("ns", "mc", with(hostA, annotationMCRouterScaleUp, "false", annotationMCRouterScaleDown, "true")),
		want:    mcRoute(backends(), nil),
		warning: "never put to sleep",
	},
	{
		name: "MOTD and wait without a wake mean nothing",
		svc:  service("ns", "mc", with(hostA, annotationMCRouterAsleepMOTD, "zzz", annotationMCRouterWaitTimeout, "20s")),
		want: mcRoute(backends(), nil),
	},
	{
		name: "gate keys win over mc-router's",
		svc: service("ns", "mc", with(hostA, annotationMCRouterScaleUp, "true", annotationMCRouterWaitTimeout, "20s",
			KeyPrefix+"wake", "deployment/other", KeyPrefix+"holdFor", "5s")),
		want: mcRoute(backends(), map[string]string{"wake": "deployment/other", "holdFor": "5s"}),
	},
	{
		name:    "a wait past the client's timeout is held for the default",
		svc:     service("ns", "mc", with(hostA, annotationMCRouterScaleUp, "1", annotationMCRouterWaitTimeout, "90s")),
		want:    mcRoute(backends(), map[string]string{"wake": "statefulset/mc", "holdFor": "25s"}),
		warning: "not less than 30s",
	},
	{
		name:    "a bad wait keeps the default",
		svc:     service("ns", "mc", with(hostA, annotationMCRouterScaleUp, "true", annotationMCRouterWaitTimeout, "soon")),
		want:    mcRoute(backends(), map[string]string{"wake": "statefulset/mc"}),
		warning: "not a positive duration",
	},
}

func TestBuildRouteMCRouter(t *testing.T) { runBuildCases(t, mcRouterBuildCases) }
