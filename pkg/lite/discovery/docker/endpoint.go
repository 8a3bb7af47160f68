package docker

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// DefaultHost is the daemon's address when neither the config nor $DOCKER_HOST
// names one.
const DefaultHost = "unix:///var/run/docker.sock"

// defaultTCPPort is the Engine API's plain-HTTP port, used when a tcp:// host
// names none (as the docker CLI does).
const defaultTCPPort = "2375"

// endpoint is where the daemon listens, ready for net.Dial.
type endpoint struct {
	network string // "unix" or "tcp"
	addr    string // socket path or host:port
	text    string // as configured, for logs
}

// Check reports whether cfg's daemon address (or the one $DOCKER_HOST gives
// when cfg names none) is well formed. It touches no network.
func Check(cfg config.DockerDiscovery) error {
	_, err := resolveHost(cfg.Host)
	return err
}

// resolveHost picks the daemon address by precedence and parses it.
func resolveHost(host string) (endpoint, error) {
	from := "host"
	if host == "" {
		host, from = os.Getenv("DOCKER_HOST"), "$DOCKER_HOST"
	}
	if host == "" {
		host = DefaultHost
	}
	ep, err := parseHost(host)
	if err != nil {
		return endpoint{}, fmt.Errorf("docker %s %q: %w", from, host, err)
	}
	return ep, nil
}

func parseHost(host string) (endpoint, error) {
	u, err := url.Parse(host)
	if err != nil {
		return endpoint{}, err
	}
	switch u.Scheme {
	case "unix":
		path := u.Path
		if u.Host != "" || !strings.HasPrefix(path, "/") {
			return endpoint{}, fmt.Errorf("want unix:///absolute/path")
		}
		return endpoint{network: "unix", addr: path, text: host}, nil
	case "tcp", "http":
		if u.Host == "" || (u.Path != "" && u.Path != "/") {
			return endpoint{}, fmt.Errorf("want tcp://host:port")
		}
		addr := u.Host
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), defaultTCPPort)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return endpoint{}, err
		}
		return endpoint{network: "tcp", addr: addr, text: host}, nil
	default:
		return endpoint{}, fmt.Errorf("unsupported scheme %q (want unix or tcp; TLS is not supported)", u.Scheme)
	}
}
