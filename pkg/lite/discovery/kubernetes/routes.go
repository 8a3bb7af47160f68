package kubernetes

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/utils/ptr"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/hostport"
)

// Annotations the source reads. Every other annotation under KeyPrefix is a
// route setting, passed through as written.
const (
	// KeyPrefix is how route keys are spelled on a Service.
	KeyPrefix = "gate.minekube.com/"
	// AnnotationHosts lists the route's host patterns, separated by commas
	// or newlines (discovery.SplitHosts).
	AnnotationHosts = KeyPrefix + "hosts"
	// AnnotationPort picks the backend port: a number, or the name of a port
	// in the Service's EndpointSlices. It wins over mc-router's port rule.
	AnnotationPort = KeyPrefix + "port"
)

// serviceRoute is what one Service contributes: a route (nil when the
// Service is not annotated for one) and, when its backends could not be
// worked out or an annotation was not taken as written, a warning saying why.
type serviceRoute struct {
	route   *discovery.Route
	warning string
}

// buildRoute turns one Service and its EndpointSlices into a route. It is pure:
// the informers' caches are read by the caller.
func buildRoute(svc *corev1.Service, endpointSlices []*discoveryv1.EndpointSlice) serviceRoute {
	ann := svc.Annotations
	hosts, hostsKey, annotated := routeHosts(ann)
	isDefault := strings.EqualFold(strings.TrimSpace(ann[annotationMCRouterDefault]), "true")
	if !annotated && !isDefault {
		return serviceRoute{}
	}
	if len(hosts) == 0 && !isDefault {
		return serviceRoute{warning: fmt.Sprintf("annotation %s lists no host: no route", hostsKey)}
	}
	if isDefault && !slices.Contains(hosts, "*") {
		hosts = append(hosts, "*")
	}
	set, warnings := mcRouterSettings(svc, settings(ann))
	r := &discovery.Route{
		Origin:    "kubernetes " + svc.Namespace + "/" + svc.Name,
		Hosts:     hosts,
		Default:   isDefault,
		Settings:  set,
		KeyPrefix: KeyPrefix,
		Namespace: svc.Namespace,
	}
	backends, warning := serviceBackends(svc, endpointSlices)
	r.Backends = backends
	if warning != "" {
		warnings = append(warnings, warning)
	}
	return serviceRoute{route: r, warning: strings.Join(warnings, "; ")}
}

// serviceBackends is where a Service's players go: the proxy mc-router's
// proxyServerName names, else an ExternalName Service's name, else the ready
// endpoints of its slices.
func serviceBackends(svc *corev1.Service, endpointSlices []*discoveryv1.EndpointSlice) ([]discovery.Backend, string) {
	if proxy := strings.TrimSpace(svc.Annotations[annotationMCRouterProxy]); proxy != "" {
		return proxyBackend(proxy)
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return externalNameBackend(svc)
	}
	return routeBackends(svc, endpointSlices)
}

// routeHosts reads the host list: gate's annotation when present (even if
// mc-router's is there too), else mc-router's. annotated reports whether
// either was present at all; key names the one read.
func routeHosts(ann map[string]string) (hosts []string, key string, annotated bool) {
	key = AnnotationHosts
	raw, ok := ann[key]
	if !ok {
		key = annotationMCRouterHosts
		raw, ok = ann[key]
	}
	if !ok {
		return nil, "", false
	}
	return discovery.SplitHosts(raw), key, true
}

// settings collects every gate annotation except the two the source consumes
// itself; values stay raw text for the merger's parsers.
func settings(ann map[string]string) map[string]string {
	var out map[string]string
	for k, v := range ann {
		key, ok := strings.CutPrefix(k, KeyPrefix)
		if !ok || k == AnnotationHosts || k == AnnotationPort || key == "" {
			continue
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[key] = v
	}
	return out
}

// routeBackends collects the ready addresses of a Service's slices on the
// chosen port, deduplicated and sorted. A terminating endpoint is left out even
// while it still serves: it is on its way out, and new players should not
// follow it there.
func routeBackends(svc *corev1.Service, endpointSlices []*discoveryv1.EndpointSlice) ([]discovery.Backend, string) {
	portAnn := strings.TrimSpace(svc.Annotations[AnnotationPort])
	var wantNumber int32
	if portAnn != "" {
		n, err := hostport.ParsePort(portAnn)
		if errors.Is(err, hostport.ErrRange) {
			return []discovery.Backend{}, fmt.Sprintf("annotation %s: port %s is not a port (1-65535)", AnnotationPort, portAnn)
		}
		wantNumber = int32(n) // 0 when the annotation names the port
	}
	var addrs []netip.AddrPort
	var warning string
	for _, es := range endpointSlices {
		if es.AddressType != discoveryv1.AddressTypeIPv4 && es.AddressType != discoveryv1.AddressTypeIPv6 {
			continue // FQDN slices name no address the proxy can dial without DNS
		}
		port := wantNumber
		if port == 0 {
			var w string
			port, w = slicePort(portAnn, minecraftPortName(svc), es.Ports)
			if w != "" {
				warning = cmp.Or(warning, w)
				continue
			}
		}
		for _, ep := range es.Endpoints {
			if !endpointReady(ep.Conditions) {
				continue
			}
			for _, a := range ep.Addresses {
				ip, err := netip.ParseAddr(a)
				if err != nil {
					continue // the API server validates addresses; nothing to dial here
				}
				addrs = append(addrs, netip.AddrPortFrom(ip.Unmap(), uint16(port)))
			}
		}
	}
	if warning != "" {
		// One slice with an unusable port makes the whole set doubtful: rather
		// no backends and a warning than a route that reaches half its pods.
		return []discovery.Backend{}, warning
	}
	slices.SortFunc(addrs, netip.AddrPort.Compare)
	addrs = slices.Compact(addrs)
	out := make([]discovery.Backend, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, discovery.Backend{Addr: a.String()})
	}
	return out, ""
}

// slicePort picks the TCP port of one slice: the one the annotation names;
// else mc-router's rule, the port named "mc-router", else "minecraft", else
// the one the Service serves on 25565 (svc25565 is its name; a slice names
// its ports after the Service's, with the endpoints' own numbers); else the
// only one.
func slicePort(name, svc25565 string, ports []discoveryv1.EndpointPort) (int32, string) {
	var tcp []discoveryv1.EndpointPort
	for _, p := range ports {
		if p.Port == nil || (p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP) {
			continue
		}
		tcp = append(tcp, p)
	}
	find := func(n string) (int32, bool) {
		for _, p := range tcp {
			if ptr.Deref(p.Name, "") == n {
				return *p.Port, true
			}
		}
		return 0, false
	}
	if name != "" {
		if port, ok := find(name); ok {
			return port, ""
		}
		return 0, fmt.Sprintf("annotation %s names port %q, which the EndpointSlices do not have", AnnotationPort, name)
	}
	if port, ok := firstNamed(find, portNameMCRouter, portNameMinecraft, svc25565); ok {
		return port, ""
	}
	switch len(tcp) {
	case 1:
		return *tcp[0].Port, ""
	case 0:
		return 0, "the EndpointSlices have no TCP port"
	default:
		return 0, fmt.Sprintf("the EndpointSlices have %d TCP ports, none named %q or %q and none the Service's %d: set annotation %s",
			len(tcp), portNameMCRouter, portNameMinecraft, wire.DefaultPort, AnnotationPort)
	}
}

// endpointReady: ready unset counts as ready (the API documents unknown as
// ready); terminating never does.
func endpointReady(c discoveryv1.EndpointConditions) bool {
	if c.Terminating != nil && *c.Terminating {
		return false
	}
	return c.Ready == nil || *c.Ready
}
