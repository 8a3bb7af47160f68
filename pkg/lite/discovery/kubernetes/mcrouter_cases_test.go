package kubernetes_test

import (
	"net"

	corev1 "k8s.io/api/core/v1"
)

// mcRouterKubeCases: mc-router's cases first, by its test's name, then the
// rules of its README and k8s.go that its tests leave out, then hostile
// Services.
var mcRouterKubeCases = []mcRouterKubeCase{
	// TestK8sWatcherImpl_handleAddThenUpdate
	{name: "handleAddThenUpdate/a to b", steps: []mcStep{
		{hosts("a.com"), map[string]string{"a.com": "pod", "b.com": unknownHost}},
		{hosts("b.com"), map[string]string{"a.com": unknownHost, "b.com": "pod"}},
	}},
	{name: "handleAddThenUpdate/a to a,b", steps: []mcStep{
		{hosts("a.com"), map[string]string{"a.com": "pod", "b.com": unknownHost}},
		{hosts("a.com,b.com"), map[string]string{"a.com": "pod", "b.com": "pod"}},
	}},
	{name: "handleAddThenUpdate/a,b to b", steps: []mcStep{
		{hosts("a.com,b.com"), map[string]string{"a.com": "pod", "b.com": "pod"}},
		{hosts("b.com"), map[string]string{"a.com": unknownHost, "b.com": "pod"}},
	}},
	{name: "handleAddThenUpdate/comma with spaces", steps: []mcStep{
		{hosts("a.com, b.com"), map[string]string{"a.com": "pod", "b.com": "pod"}},
		{hosts("b.com"), map[string]string{"a.com": unknownHost, "b.com": "pod"}},
	}},
	{name: "handleAddThenUpdate/newline separated", steps: []mcStep{
		{hosts("a.com\nb.com"), map[string]string{"a.com": "pod", "b.com": "pod"}},
		{hosts("b.com"), map[string]string{"a.com": unknownHost, "b.com": "pod"}},
	}},
	{name: "handleAddThenUpdate/mixed comma and newline with spaces", steps: []mcStep{
		{hosts("a.com, \nb.com,  c.com"), map[string]string{"a.com": "pod", "b.com": "pod", "c.com": "pod"}},
		{hosts("b.com"), map[string]string{"a.com": unknownHost, "b.com": "pod", "c.com": unknownHost}},
	}},
	// TestK8sWatcherImpl_handleAddThenDelete
	{name: "handleAddThenDelete/single", steps: []mcStep{
		{hosts("a.com"), map[string]string{"a.com": "pod", "b.com": unknownHost}},
		{nil, map[string]string{"a.com": unknownHost, "b.com": unknownHost}},
	}},
	{name: "handleAddThenDelete/multi", steps: []mcStep{
		{hosts("a.com,b.com"), map[string]string{"a.com": "pod", "b.com": "pod"}},
		{nil, map[string]string{"a.com": unknownHost, "b.com": unknownHost}},
	}},
	// TestK8s_externalName
	{name: "externalName/typeChange", steps: []mcStep{
		{external("a.com", "ext"), map[string]string{"a.com": "ext", "b.com": unknownHost}},
		{hosts("a.com"), map[string]string{"a.com": "pod", "b.com": unknownHost}},
	}},
	{name: "externalName/typeAndServerChange", steps: []mcStep{
		{external("a.com", "ext"), map[string]string{"a.com": "ext", "b.com": unknownHost}},
		{hosts("b.com"), map[string]string{"a.com": unknownHost, "b.com": "pod"}},
	}},
	{name: "externalName/externalNameChange", steps: []mcStep{
		{external("a.com,b.com", "ext"), map[string]string{"a.com": "ext", "b.com": "ext"}},
		{external("a.com,b.com", "ext2"), map[string]string{"a.com": "ext2", "b.com": "ext2"}},
	}},
	// TestK8s_proxyServerName
	{name: "proxyServerName/proxy routes to proxy address", steps: []mcStep{
		{proxied(func(w *mcWorld) string { return w.backends["proxy"].Addr() }), map[string]string{"mc.example.com": "proxy"}},
	}},
	{name: "proxyServerName/proxy without port gets default 25565", steps: []mcStep{
		{proxied(func(w *mcWorld) string { return w.host("proxy25565") }), map[string]string{"mc.example.com": "proxy25565"}},
	}},
	{name: "proxyServerName/no proxy annotation routes to ClusterIP", steps: []mcStep{
		{hosts("mc.example.com"), map[string]string{"mc.example.com": "pod"}},
	}},
	// TestK8s_proxyServerNameUpdate
	{name: "proxyServerNameUpdate", steps: []mcStep{
		{proxied(func(w *mcWorld) string { return w.backends["proxy"].Addr() }), map[string]string{"mc.example.com": "proxy"}},
		{hosts("mc.example.com"), map[string]string{"mc.example.com": "pod"}},
	}},
	// TestK8s_proxyServerNameScaleEndpoint, TestK8s_autoScaleWithoutProxy,
	// TestK8s_motdAnnotations, TestBuildK8sWaker_*
	{name: "proxyServerNameScaleEndpoint", run: proxyScalesOwnStatefulSet},
	{name: "autoScaleWithoutProxy", run: loginWakesStatefulSet},
	{name: "buildK8sWaker/WaitsForEndpoint", run: loginWakesStatefulSet},
	{name: "buildK8sWaker/NilScaleUp", run: scaleUpOffLeavesStatefulSet},
	{name: "buildK8sWaker/ScaleUpError", run: scaleUpWithoutStatefulSet},
	{name: "buildK8sWaker/ContextCancellation", run: waitTimeoutEndsHold},
	{name: "motdAnnotations", run: motdAnnotations},

	// README and k8s.go: the port rule, "mc-router", then "minecraft", then
	// the Service's port 25565, mapped to the endpoints' own port (issue 31,
	// K17, K19, K20).
	portCase("README/port named mc-router over minecraft", nil,
		map[string]string{"minecraft": "other", "mc-router": "pod"}, tcpPort("minecraft", 25565), tcpPort("mc-router", 25566)),
	portCase("README/port named mc-router beside another", nil,
		map[string]string{"mc-router": "pod", "rcon": "other"}, tcpPort("mc-router", 25565), tcpPort("rcon", 25575)),
	portCase("README/port 25565 named otherwise beside another", nil,
		map[string]string{"game": "pod", "query": "other"}, tcpPort("game", 25565), tcpPort("query", 25566)),
	portCase("README/gate port annotation wins", map[string]string{"gate.minekube.com/port": "game"},
		map[string]string{"mc-router": "other", "game": "pod"}, tcpPort("mc-router", 25565), tcpPort("game", 25566)),
	{name: "README/defaultServer", steps: []mcStep{
		{func(*mcWorld) *corev1.Service { return svc(map[string]string{annDefaultServer: "true"}) },
			map[string]string{"a.com": "pod", "anything.example.com": "pod"}},
	}},
	{name: "README/autoScaleDown false never sleeps", run: scaleDownOffNeverSleeps},
	{name: "README/autoScaleWaitTimeout above the client's timeout", run: longWaitTimeoutIsCapped},

	// Hostile Services: a name may not lead the proxy to its own host.
	{name: "hostile/externalName on loopback", run: loopbackExternalNameRefused},
	{name: "hostile/proxyServerName localhost", steps: []mcStep{
		{proxied(func(w *mcWorld) string { return net.JoinHostPort("localhost", "25565") }), map[string]string{"mc.example.com": unavailable}},
	}},
}

// portCase is a Service "mc" for a.com with annotations ann and ports, whose
// EndpointSlice gives each of its ports the port of the backend on names
// ("pod" or "other"): players must reach pod.
func portCase(name string, ann, on map[string]string, ports ...corev1.ServicePort) mcRouterKubeCase {
	return mcRouterKubeCase{name: name,
		slice: func(w *mcWorld) map[string]int32 {
			out := make(map[string]int32, len(on))
			for port, backend := range on {
				out[port] = w.port(backend)
			}
			return out
		},
		steps: []mcStep{{func(*mcWorld) *corev1.Service {
			all := map[string]string{annExternalServerName: "a.com"}
			for k, v := range ann {
				all[k] = v
			}
			return svc(all, ports...)
		}, map[string]string{"a.com": "pod"}}},
	}
}
