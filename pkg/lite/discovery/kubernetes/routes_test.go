package kubernetes

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"go.minekube.com/gate/pkg/lite/discovery"
)

func service(ns, name string, ann map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann}}
}

// endpoint is one slice endpoint: ready unless stated otherwise.
type endpoint struct {
	addr        string
	ready       *bool
	serving     *bool
	terminating *bool
}

func ready(addr string) endpoint { return endpoint{addr: addr, ready: ptr.To(true)} }

func port(name string, n int32) discoveryv1.EndpointPort {
	p := discoveryv1.EndpointPort{Port: ptr.To(n), Protocol: ptr.To(corev1.ProtocolTCP)}
	if name != "" {
		p.Name = ptr.To(name)
	}
	return p
}

func slice(ns, svc, name string, at discoveryv1.AddressType, ports []discoveryv1.EndpointPort, eps ...endpoint) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name,
			Labels: map[string]string{discoveryv1.LabelServiceName: svc},
		},
		AddressType: at,
		Ports:       ports,
	}
	for _, e := range eps {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{e.addr},
			Conditions: discoveryv1.EndpointConditions{Ready: e.ready, Serving: e.serving, Terminating: e.terminating},
		})
	}
	return es
}

func backends(addrs ...string) []discovery.Backend {
	out := make([]discovery.Backend, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, discovery.Backend{Addr: a})
	}
	return out
}

var (
	routeMC = []discoveryv1.EndpointPort{port("minecraft", 25565)}
	routeV4 = discoveryv1.AddressTypeIPv4
)

// buildCase is one Service and its slices, and the route and warning
// buildRoute must make of them.
type buildCase struct {
	name    string
	svc     *corev1.Service
	slices  []*discoveryv1.EndpointSlice
	want    *discovery.Route
	warning string // substring; "" means none
}

// buildRouteCases are TestBuildRoute's cases.
var buildRouteCases = []buildCase{
	{
		name: "no annotation is no route",
		svc:  service("ns", "web", map[string]string{"app": "x"}),
	},
	{
		name: "gate hosts trimmed, empty items dropped, settings raw",
		svc: service("ns", "mc", map[string]string{
			AnnotationHosts:                      " a.example.com, ,*.b.example.com ,",
			KeyPrefix + "strategy":               "least-connections",
			KeyPrefix + "fallback":               "{motd: down}",
			KeyPrefix + "wake":                   "true",
			"mc-router.itzg.me/autoScaleUp":      "x",
			"kubectl.kubernetes.io/last-applied": "{}",
		}),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4, routeMC, ready("10.0.0.2"), ready("10.0.0.10"), ready("10.0.0.2"))},
		want: &discovery.Route{
			Origin: "kubernetes ns/mc", Namespace: "ns",
			Hosts:     []string{"a.example.com", "*.b.example.com"},
			Backends:  backends("10.0.0.2:25565", "10.0.0.10:25565"),
			Settings:  map[string]string{"strategy": "least-connections", "fallback": "{motd: down}", "wake": "true"},
			KeyPrefix: KeyPrefix,
		},
		warning: `autoScaleUp: "x" is not true or false`,
	},
	{
		name: "wake keys pass through raw",
		svc: service("games", "survival", map[string]string{
			AnnotationHosts:          "survival.example.com",
			KeyPrefix + "wake":       "statefulset/survival",
			KeyPrefix + "holdFor":    "25s",
			KeyPrefix + "idleAfter":  "10m",
			KeyPrefix + "asleepMotd": "§7survival is asleep: join to wake it",
		}),
		want: &discovery.Route{
			Origin: "kubernetes games/survival", Namespace: "games", Hosts: []string{"survival.example.com"}, Backends: backends(),
			Settings: map[string]string{
				"wake": "statefulset/survival", "holdFor": "25s", "idleAfter": "10m",
				"asleepMotd": "§7survival is asleep: join to wake it",
			},
			KeyPrefix: KeyPrefix,
		},
	},
	{
		// Scaled to zero, the controller keeps the slice and empties it:
		// the route stays (its host is known, it can be woken) with no
		// backends.
		name:   "scaled to zero: an empty slice",
		svc:    service("ns", "mc", map[string]string{AnnotationHosts: "a", KeyPrefix + "wake": "deployment/mc"}),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4, routeMC)},
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends(),
			Settings: map[string]string{"wake": "deployment/mc"}, KeyPrefix: KeyPrefix},
	},
	{
		name: "gate hosts win over mc-router's",
		svc: service("ns", "mc", map[string]string{
			AnnotationHosts:         "gate.example.com",
			annotationMCRouterHosts: "router.example.com",
		}),
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"gate.example.com"}, Backends: backends(), KeyPrefix: KeyPrefix},
	},
	{
		name: "mc-router externalServerName, no slices yet",
		svc:  service("ns", "mc", map[string]string{annotationMCRouterHosts: "a.example.com,b.example.com"}),
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a.example.com", "b.example.com"}, Backends: backends(), KeyPrefix: KeyPrefix},
	},
	{
		// mc-router's README recommends a YAML block, one host per line.
		name: "mc-router externalServerName on several lines",
		svc:  service("ns", "mc", map[string]string{annotationMCRouterHosts: "a.example.com\nb.example.com\n"}),
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a.example.com", "b.example.com"}, Backends: backends(), KeyPrefix: KeyPrefix},
	},
	{
		name: "mc-router defaultServer is a catch-all",
		svc:  service("ns", "lobby", map[string]string{annotationMCRouterDefault: "true"}),
		want: &discovery.Route{Origin: "kubernetes ns/lobby", Namespace: "ns", Hosts: []string{"*"}, Default: true, Backends: backends(), KeyPrefix: KeyPrefix},
	},
	{
		name: "defaultServer false is no route",
		svc:  service("ns", "lobby", map[string]string{annotationMCRouterDefault: "false"}),
	},
	{
		name:    "hosts annotation with no host",
		svc:     service("ns", "mc", map[string]string{AnnotationHosts: " , "}),
		warning: "lists no host",
	},
	{
		name: "not ready, terminating and serving, ready unset",
		svc:  service("ns", "mc", map[string]string{AnnotationHosts: "a"}),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4, routeMC,
			ready("10.0.0.1"),
			endpoint{addr: "10.0.0.2", ready: ptr.To(false)},
			endpoint{addr: "10.0.0.3", ready: ptr.To(true), serving: ptr.To(true), terminating: ptr.To(true)},
			endpoint{addr: "10.0.0.4"},
		)},
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends("10.0.0.1:25565", "10.0.0.4:25565"), KeyPrefix: KeyPrefix},
	},
	{
		name: "IPv6 in brackets, FQDN slices ignored, several slices merged",
		svc:  service("ns", "mc", map[string]string{AnnotationHosts: "a"}),
		slices: []*discoveryv1.EndpointSlice{
			slice("ns", "mc", "mc-6", discoveryv1.AddressTypeIPv6, routeMC, ready("fd00::2")),
			slice("ns", "mc", "mc-4", routeV4, routeMC, ready("10.0.0.1")),
			slice("ns", "mc", "mc-f", discoveryv1.AddressTypeFQDN, routeMC, ready("mc.example.com")),
		},
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends("10.0.0.1:25565", "[fd00::2]:25565"), KeyPrefix: KeyPrefix},
	},
	{
		name: "port annotation by name",
		svc:  service("ns", "mc", map[string]string{AnnotationHosts: "a", AnnotationPort: "game"}),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4,
			[]discoveryv1.EndpointPort{port("minecraft", 25565), port("game", 25566)}, ready("10.0.0.1"))},
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends("10.0.0.1:25566"), KeyPrefix: KeyPrefix},
	},
	{
		name: "port annotation by number",
		svc:  service("ns", "mc", map[string]string{AnnotationHosts: "a", AnnotationPort: "30000"}),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4,
			[]discoveryv1.EndpointPort{port("a", 1), port("b", 2)}, ready("10.0.0.1"))},
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends("10.0.0.1:30000"), KeyPrefix: KeyPrefix},
	},
	{
		name: "the port named minecraft among several",
		svc:  service("ns", "mc", map[string]string{AnnotationHosts: "a"}),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4,
			[]discoveryv1.EndpointPort{port("rcon", 25575), port("minecraft", 25565)}, ready("10.0.0.1"))},
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends("10.0.0.1:25565"), KeyPrefix: KeyPrefix},
	},
	{
		name: "the only TCP port, a UDP one beside it",
		svc:  service("ns", "mc", map[string]string{AnnotationHosts: "a"}),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4,
			[]discoveryv1.EndpointPort{{Name: ptr.To("voice"), Port: ptr.To(int32(24454)), Protocol: ptr.To(corev1.ProtocolUDP)}, port("", 25565)}, ready("10.0.0.1"))},
		want: &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends("10.0.0.1:25565"), KeyPrefix: KeyPrefix},
	},
	{
		name: "ambiguous ports: no backends and a warning",
		svc:  service("ns", "mc", map[string]string{AnnotationHosts: "a"}),
		slices: []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4,
			[]discoveryv1.EndpointPort{port("a", 1), port("b", 2)}, ready("10.0.0.1"))},
		want:    &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends(), KeyPrefix: KeyPrefix},
		warning: "2 TCP ports",
	},
	{
		name:    "port annotation names a missing port",
		svc:     service("ns", "mc", map[string]string{AnnotationHosts: "a", AnnotationPort: "nope"}),
		slices:  []*discoveryv1.EndpointSlice{slice("ns", "mc", "mc-1", routeV4, routeMC, ready("10.0.0.1"))},
		want:    &discovery.Route{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"a"}, Backends: backends(), KeyPrefix: KeyPrefix},
		warning: `names port "nope"`,
	},
}

func TestBuildRoute(t *testing.T) { runBuildCases(t, buildRouteCases) }

func runBuildCases(t *testing.T, cases []buildCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := buildRoute(tt.svc, tt.slices)
			if !reflect.DeepEqual(got.route, tt.want) {
				t.Errorf("route:\n got %+v\nwant %+v", got.route, tt.want)
			}
			switch {
			case tt.warning == "" && got.warning != "":
				t.Errorf("unexpected warning %q", got.warning)
			case tt.warning != "" && !strings.Contains(got.warning, tt.warning):
				t.Errorf("warning %q, want one containing %q", got.warning, tt.warning)
			}
		})
	}
}
