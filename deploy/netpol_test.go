package deploy

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// checkNetworkPolicy checks that the install's one NetworkPolicy lets anyone reach
// the minecraft port and only a chosen namespace the api port: a pod that reaches
// the API can take its connections, and /metrics is served without a token.
func checkNetworkPolicy(t *testing.T, pols []*networkingv1.NetworkPolicy, podLabels map[string]string) {
	t.Helper()
	if len(pols) != 1 {
		t.Fatalf("want one NetworkPolicy, got %d", len(pols))
	}
	p := pols[0]
	if !selects(p.Spec.PodSelector.MatchLabels, podLabels) || len(p.Spec.PodSelector.MatchLabels) == 0 {
		t.Errorf("NetworkPolicy selector %v does not select the pods %v", p.Spec.PodSelector.MatchLabels, podLabels)
	}
	if len(p.Spec.PolicyTypes) != 1 || p.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress {
		t.Errorf("NetworkPolicy policyTypes = %v, want [Ingress]", p.Spec.PolicyTypes)
	}
	open, api := false, false
	for i, r := range p.Spec.Ingress {
		if len(r.Ports) == 0 {
			t.Errorf("ingress rule %d opens every port", i)
		}
		for _, port := range r.Ports {
			switch {
			case port.Port == nil:
				t.Errorf("ingress rule %d opens every port", i)
			case *port.Port == intstr.FromString("minecraft"):
				open = open || len(r.From) == 0
			case *port.Port == intstr.FromString("api"):
				api = true
				checkAPIPeers(t, i, r.From)
			default:
				t.Errorf("ingress rule %d opens port %s", i, port.Port.String())
			}
		}
	}
	if !open || !api {
		t.Errorf("NetworkPolicy: minecraft open to all %v, api rule present %v; want both", open, api)
	}
}

// checkAPIPeers accepts only peers chosen by a namespace's name label.
func checkAPIPeers(t *testing.T, rule int, from []networkingv1.NetworkPolicyPeer) {
	t.Helper()
	if len(from) == 0 {
		t.Errorf("ingress rule %d lets anyone reach the api port", rule)
	}
	for _, peer := range from {
		ns := peer.NamespaceSelector
		if peer.IPBlock != nil || ns == nil || ns.MatchLabels["kubernetes.io/metadata.name"] == "" {
			t.Errorf("ingress rule %d: api peer %+v is not one named namespace", rule, peer)
		}
	}
}

// The chart's NetworkPolicy can be turned off and pointed at another namespace.
func TestChartNetworkPolicyValues(t *testing.T) {
	if o := renderChart(t, map[string]any{"networkPolicy": map[string]any{"enabled": false}}, "games"); len(o.netpols) != 0 {
		t.Errorf("networkPolicy.enabled false rendered %d NetworkPolicies", len(o.netpols))
	}
	o := renderChart(t, map[string]any{"networkPolicy": map[string]any{"monitoringNamespace": "observability"}}, "games")
	if len(o.netpols) != 1 {
		t.Fatalf("want one NetworkPolicy, got %d", len(o.netpols))
	}
	for _, r := range o.netpols[0].Spec.Ingress {
		for _, peer := range r.From {
			if got := peer.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"]; got != "observability" {
				t.Errorf("api peers from namespace %q, want observability", got)
			}
		}
	}
}

// The chart's probes port is a value: the container port, the probes and the
// config's api.probeBind follow it, and the NetworkPolicy still opens it to no one.
func TestChartProbePortValue(t *testing.T) {
	o := renderChart(t, map[string]any{"api": map[string]any{"probePort": 9101}}, "games")
	c := o.deployments[0].Spec.Template.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["probes"] != 9101 || ports["api"] != 8080 {
		t.Fatalf("container ports = %v, want probes 9101 and api 8080", ports)
	}
	checkAPIListeners(t, ports, o.configMaps[0])
	checkProbe(t, "readiness", c.ReadinessProbe, "/readyz")
	checkProbe(t, "liveness", c.LivenessProbe, "/healthz")
	checkNetworkPolicy(t, o.netpols, o.deployments[0].Spec.Template.Labels)
}
