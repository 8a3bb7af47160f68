package kubernetes

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/hostport"
)

// mc-router's annotations (itzg/mc-router, server/k8s.go), read with its
// meaning so that Services set up for it work unchanged. Where a gate
// annotation says the same thing, the gate annotation wins.
const (
	annotationMCRouterHosts   = "mc-router.itzg.me/externalServerName"
	annotationMCRouterDefault = "mc-router.itzg.me/defaultServer"
	// annotationMCRouterProxy names a proxy (Velocity, BungeeCord) players
	// are sent to instead of the Service's pods; waking stays the Service's.
	annotationMCRouterProxy       = "mc-router.itzg.me/proxyServerName"
	annotationMCRouterScaleUp     = "mc-router.itzg.me/autoScaleUp"
	annotationMCRouterScaleDown   = "mc-router.itzg.me/autoScaleDown"
	annotationMCRouterAsleepMOTD  = "mc-router.itzg.me/autoScaleAsleepMOTD"
	annotationMCRouterLoadingMOTD = "mc-router.itzg.me/autoScaleLoadingMOTD"
	annotationMCRouterWaitTimeout = "mc-router.itzg.me/autoScaleWaitTimeout"
)

// mc-router's port rule: the Service port named "mc-router", else the one
// named "minecraft", else the one numbered wire.DefaultPort.
const (
	portNameMCRouter  = "mc-router"
	portNameMinecraft = "minecraft"
	// noPort is no name a Service port can have (names are DNS labels).
	noPort = "\x00"
)

// The route keys mc-router's auto-scale annotations map onto.
const (
	keyWake        = "wake"
	keyIdleAfter   = "idleAfter"
	keyAsleepMOTD  = "asleepMotd"
	keyLoadingMOTD = "loadingMotd"
	keyHoldFor     = "holdFor"
)

// minecraftPortName is the name of the Service's TCP port 25565 ("" when it
// is its only, unnamed port), or noPort when it has none.
func minecraftPortName(svc *corev1.Service) string {
	for _, p := range svc.Spec.Ports {
		if p.Port == int32(wire.DefaultPort) && (p.Protocol == "" || p.Protocol == corev1.ProtocolTCP) {
			return p.Name
		}
	}
	return noPort
}

// externalNameBackend is an ExternalName Service's backend: its name, on
// the port the annotation names (a number, or a Service port's name), else
// on mc-router's rule over the Service's ports (ExternalName Services have
// no endpoints, so the Service port is the one dialled), else 25565.
func externalNameBackend(svc *corev1.Service) ([]discovery.Backend, string) {
	port, warning := externalNamePort(svc)
	if warning != "" {
		return []discovery.Backend{}, warning
	}
	host := strings.TrimSuffix(strings.TrimSpace(svc.Spec.ExternalName), ".")
	return namedBackend("spec.externalName", host, port)
}

func externalNamePort(svc *corev1.Service) (uint16, string) {
	byName := func(n string) (uint16, bool) {
		for _, p := range svc.Spec.Ports {
			if p.Name == n && p.Port > 0 && p.Port <= 65535 {
				return uint16(p.Port), true
			}
		}
		return 0, false
	}
	if ann := strings.TrimSpace(svc.Annotations[AnnotationPort]); ann != "" {
		if n, err := hostport.ParsePort(ann); err == nil {
			return n, ""
		}
		if p, ok := byName(ann); ok {
			return p, ""
		}
		return 0, fmt.Sprintf("annotation %s: %q is neither a port (1-65535) nor the name of one of the Service's ports", AnnotationPort, ann)
	}
	if p, ok := firstNamed(byName, portNameMCRouter, portNameMinecraft); ok {
		return p, ""
	}
	return wire.DefaultPort, ""
}

// firstNamed is the port find finds under the first of names that it has.
func firstNamed[P any](find func(name string) (P, bool), names ...string) (P, bool) {
	for _, n := range names {
		if p, ok := find(n); ok {
			return p, true
		}
	}
	var none P
	return none, false
}

// proxyBackend reads proxyServerName as mc-router does: host, or host:port
// with 25565 when the port is left out.
func proxyBackend(v string) ([]discovery.Backend, string) {
	host, portText, err := net.SplitHostPort(v)
	if err != nil {
		host, portText = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]"), strconv.Itoa(int(wire.DefaultPort))
	}
	port, err := hostport.ParsePort(portText)
	if err != nil {
		return []discovery.Backend{}, fmt.Sprintf("annotation %s: %q has no usable port (1-65535): no backend", annotationMCRouterProxy, v)
	}
	return namedBackend("annotation "+annotationMCRouterProxy, strings.TrimSuffix(host, "."), port)
}

// namedBackend is a backend a Service names by host rather than by its
// endpoints: dialled as a file's backend is, the name resolved at each dial.
// The names that always lead to the proxy's own host (loopback, unspecified,
// link-local, multicast; "localhost") are refused, as the API server refuses
// them as endpoint addresses: a Service's author may not point the proxy at
// services only its host can reach.
func namedBackend(what, host string, port uint16) ([]discovery.Backend, string) {
	if host == "" {
		return []discovery.Backend{}, what + " is empty: no backend"
	}
	lower := strings.ToLower(host)
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		return []discovery.Backend{}, fmt.Sprintf("%s %q names the proxy's own host: no backend", what, host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		if ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
			ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
			return []discovery.Backend{}, fmt.Sprintf("%s %s is a loopback, unspecified, link-local or multicast address: no backend", what, host)
		}
		host = ip.String()
	}
	return []discovery.Backend{{Addr: net.JoinHostPort(host, strconv.Itoa(int(port)))}}, ""
}

// mcRouterSettings adds to own (the gate annotations' settings) what
// mc-router's auto-scale annotations mean in this proxy's keys; a key own
// already has is left as it is. autoScaleUp wakes the StatefulSet of the
// Service's name in its namespace (mc-router scales the StatefulSet serving
// the Service, with replicas 0 and 1, as the wake does); autoScaleDown false
// never puts it to sleep; the asleep and loading MOTDs and the wait timeout
// tune it. The warnings say which annotation was not taken as written.
func mcRouterSettings(svc *corev1.Service, own map[string]string) (map[string]string, []string) {
	ann := svc.Annotations
	var warnings []string
	warn := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	up, upSet := mcRouterBool(ann, annotationMCRouterScaleUp, warn)
	down, downSet := mcRouterBool(ann, annotationMCRouterScaleDown, warn)
	mapped := make(map[string]string)
	switch {
	case up || (!upSet && down):
		mapped[keyWake] = "statefulset/" + svc.Name
	case upSet && down:
		warn("annotation %s is true and %s is not: this proxy puts to sleep only what it wakes, so the server is never put to sleep",
			annotationMCRouterScaleDown, annotationMCRouterScaleUp)
	}
	if _, ownWake := own[keyWake]; ownWake || mapped[keyWake] != "" {
		if downSet && !down {
			mapped[keyIdleAfter] = "never"
		}
		for key, motd := range map[string]string{keyAsleepMOTD: ann[annotationMCRouterAsleepMOTD], keyLoadingMOTD: ann[annotationMCRouterLoadingMOTD]} {
			if strings.TrimSpace(motd) != "" {
				mapped[key] = yamlText(motd)
			}
		}
		if hold, ok := mcRouterHoldFor(ann, warn); ok {
			mapped[keyHoldFor] = hold
		}
	}
	if len(mapped) == 0 {
		return own, warnings
	}
	out := maps.Clone(own)
	if out == nil {
		out = make(map[string]string, len(mapped))
	}
	for k, v := range mapped {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out, warnings
}

// mcRouterBool reads an auto-scale switch as mc-router does
// (strconv.ParseBool); a value that does not parse switches it off, with a
// warning. set reports whether the annotation is there at all.
func mcRouterBool(ann map[string]string, key string, warn func(string, ...any)) (on, set bool) {
	v, ok := ann[key]
	if !ok {
		return false, false
	}
	on, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		warn("annotation %s: %q is not true or false: taken as false", key, v)
	}
	return on, true
}

// mcRouterHoldFor maps autoScaleWaitTimeout onto holdFor. mc-router waits up
// to a minute by default; a client gives up after config.MaxHoldFor and then
// shows its own timeout, never why, so a longer wait is held for
// config.DefaultHoldFor instead, with a warning.
func mcRouterHoldFor(ann map[string]string, warn func(string, ...any)) (string, bool) {
	v := strings.TrimSpace(ann[annotationMCRouterWaitTimeout])
	if v == "" {
		return "", false
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil || d <= 0:
		warn("annotation %s: %q is not a positive duration: holdFor keeps its default", annotationMCRouterWaitTimeout, v)
		return "", false
	case d >= config.MaxHoldFor:
		warn("annotation %s: %s is not less than %s, the client's own timeout: logins are held for %s",
			annotationMCRouterWaitTimeout, d, config.MaxHoldFor, config.DefaultHoldFor)
		return config.DefaultHoldFor.String(), true
	}
	return d.String(), true
}

// yamlText quotes a text so that the merger reads it back as that text (a
// MOTD such as "yes" or "[closed]" is not a YAML boolean or list): a JSON
// string is a YAML double-quoted scalar.
func yamlText(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
