package config

import (
	"path/filepath"
	"slices"
	"strings"
)

// Discovery is `config.lite.discovery`: where routes come from besides the
// file. Every source is off by default.
type Discovery struct {
	// Kubernetes finds routes on annotated Services (`kubernetes`).
	Kubernetes KubernetesDiscovery
	// Docker finds routes on labelled containers (`docker`).
	Docker DockerDiscovery
	// Precedence orders the sources when two of them claim the same host:
	// the earlier one's route wins. Names are "file", "kubernetes" and
	// "docker". Default [file, kubernetes, docker]; sources left out follow
	// in that default order.
	Precedence []string
	// Claims holds each source's `hosts` (kubernetes.hosts, docker.hosts).
	// They live apart from the source settings because they reload live.
	Claims Claims
}

// Claims are the host claims the file grants each discovery source's owners.
type Claims struct {
	// Kubernetes maps namespaces to the host patterns their Services may
	// claim. Default nil: any namespace, any host.
	Kubernetes HostClaims
	// Docker maps container names to the host patterns they may claim.
	// Default nil: any container, any host.
	Docker HostClaims
}

// For returns the claims of the named source (nil for others).
func (c Claims) For(source string) HostClaims {
	switch source {
	case SourceKubernetes:
		return c.Kubernetes
	case SourceDocker:
		return c.Docker
	}
	return nil
}

// KubernetesDiscovery is `config.lite.discovery.kubernetes`.
type KubernetesDiscovery struct {
	// Enabled watches Services and EndpointSlices. Default false.
	Enabled bool
	// Kubeconfig is the kubeconfig file to use, resolved against the config
	// file's directory. Default "": the in-cluster service account, else the
	// file $KUBECONFIG names.
	Kubeconfig string
	// Namespace limits the watch to one namespace. Default "": every
	// namespace (which needs a ClusterRole).
	Namespace string
	// LabelSelector limits the watch to Services matching it (Kubernetes
	// label selector syntax). Default "": every Service (only annotated ones
	// become routes).
	LabelSelector string
}

// DockerDiscovery is `config.lite.discovery.docker`.
type DockerDiscovery struct {
	// Enabled watches the Docker daemon's containers. Default false.
	Enabled bool
	// Host is the daemon's address: unix:///path or tcp://host:port.
	// Default "": $DOCKER_HOST, else unix:///var/run/docker.sock.
	Host string
	// Network is the container network whose address backends are reached
	// on, when a container is on several and has no network label. Default
	// "": a container on exactly one network uses that one.
	Network string
}

// Any reports whether some discovery source is enabled.
func (d Discovery) Any() bool { return d.Kubernetes.Enabled || d.Docker.Enabled }

// Source names, as `precedence` and route origins spell them.
const (
	SourceFile       = "file"
	SourceKubernetes = "kubernetes"
	SourceDocker     = "docker"
)

// DefaultPrecedence is the order in which sources win a host two of them claim.
func DefaultPrecedence() []string { return []string{SourceFile, SourceKubernetes, SourceDocker} }

func (d *decoder) decodeDiscovery(e entry, dst *Discovery) {
	var precedence []string
	d.mapping(e, map[string]handler{
		"kubernetes": func(f entry) {
			k := &dst.Kubernetes
			d.mapping(f, map[string]handler{
				"enabled":       func(g entry) { d.boolean(g, &k.Enabled) },
				"kubeconfig":    func(g entry) { d.path(g, &k.Kubeconfig) },
				"namespace":     func(g entry) { d.str(g, &k.Namespace) },
				"labelSelector": func(g entry) { d.str(g, &k.LabelSelector) },
				"hosts":         func(g entry) { d.decodeHostClaims(g, &dst.Claims.Kubernetes) },
			}, nil)
		},
		"docker": func(f entry) {
			c := &dst.Docker
			d.mapping(f, map[string]handler{
				"enabled": func(g entry) { d.boolean(g, &c.Enabled) },
				"host":    func(g entry) { d.str(g, &c.Host) },
				"network": func(g entry) { d.str(g, &c.Network) },
				"hosts":   func(g entry) { d.decodeHostClaims(g, &dst.Claims.Docker) },
			}, nil)
		},
		"precedence": func(f entry) {
			items, ok := d.stringList(f)
			if !ok {
				return
			}
			seen := map[string]bool{}
			for _, it := range items {
				switch {
				case !slices.Contains(DefaultPrecedence(), it.s):
					d.errorf(it.line, it.path, ErrInvalid, "unknown source %q (want %s)", truncate(it.s), strings.Join(DefaultPrecedence(), ", "))
				case seen[it.s]:
					d.errorf(it.line, it.path, ErrInvalid, "source %q listed twice", it.s)
				default:
					seen[it.s] = true
					precedence = append(precedence, it.s)
				}
			}
		},
	}, nil)
	for _, s := range DefaultPrecedence() {
		if !slices.Contains(precedence, s) {
			precedence = append(precedence, s)
		}
	}
	dst.Precedence = precedence
}

// path decodes a file path, resolved against the config file's directory.
func (d *decoder) path(e entry, dst *string) {
	d.str(e, dst)
	if *dst != "" && !filepath.IsAbs(*dst) {
		*dst = filepath.Join(d.dir, *dst)
	}
}
