package docker

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
)

// DefaultHost is the daemon's address when neither the caller nor
// $DOCKER_HOST names one.
const DefaultHost = "unix:///var/run/docker.sock"

// defaultTCPPort is the Engine API's plain-HTTP port, used when a tcp:// host
// names none (as the docker CLI does).
const defaultTCPPort = "2375"

// Endpoint is where the daemon listens, ready for net.Dial.
type Endpoint struct {
	Network string // "unix" or "tcp"
	Addr    string // socket path or host:port
	text    string // as configured, for logs
}

// String is the address as configured.
func (e Endpoint) String() string { return e.text }

// Resolve picks the daemon address (host, else $DOCKER_HOST, else
// DefaultHost) and parses it. It touches no network.
func Resolve(host string) (Endpoint, error) {
	from := "host"
	if host == "" {
		host, from = os.Getenv("DOCKER_HOST"), "$DOCKER_HOST"
	}
	if host == "" {
		host = DefaultHost
	}
	ep, err := ParseHost(host)
	if err != nil {
		return Endpoint{}, fmt.Errorf("docker %s %q: %w", from, host, err)
	}
	return ep, nil
}

// ParseHost parses a daemon address: unix:///absolute/path or
// tcp://host[:port] (TLS is not supported).
func ParseHost(host string) (Endpoint, error) {
	u, err := url.Parse(host)
	if err != nil {
		return Endpoint{}, err
	}
	switch u.Scheme {
	case "unix":
		path := u.Path
		if u.Host != "" || !strings.HasPrefix(path, "/") {
			return Endpoint{}, fmt.Errorf("want unix:///absolute/path")
		}
		return Endpoint{Network: "unix", Addr: path, text: host}, nil
	case "tcp", "http":
		if u.Host == "" || (u.Path != "" && u.Path != "/") {
			return Endpoint{}, fmt.Errorf("want tcp://host:port")
		}
		addr := u.Host
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), defaultTCPPort)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return Endpoint{}, err
		}
		return Endpoint{Network: "tcp", Addr: addr, text: host}, nil
	default:
		return Endpoint{}, fmt.Errorf("unsupported scheme %q (want unix or tcp; TLS is not supported)", u.Scheme)
	}
}
