package config

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
