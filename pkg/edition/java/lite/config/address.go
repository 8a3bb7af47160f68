package config

import (
	"errors"
	"net"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"go.minekube.com/gate/pkg/lite/hostport"
)

// paramRE finds `$n` template references; validation treats each as a label.
var paramRE = regexp.MustCompile(`\$[0-9]+`)

// validBackend checks host or host:port with a port to dial (hostport's
// rule), IPv6 in brackets, `$n` standing for a DNS label. A port with a `$n` in it
// (`127.0.0.1:$1`, `$1:$2`) is checked when it is dialled, after expansion,
// as in Gate.
func validBackend(addr string) error {
	host, port, err := splitOptionalPort(paramRE.ReplaceAllString(addr, "x"))
	if err != nil {
		return err
	}
	_, rawPort, _ := splitOptionalPort(addr)
	if port != "" && !paramRE.MatchString(rawPort) {
		if _, err := hostport.ParsePort(port); err != nil {
			return err
		}
	}
	return validHost(host, strings.HasPrefix(addr, "["))
}

// validListenAddr checks host:port for a listener: the host may be empty
// (every interface) and the port may be 0 (a free one).
func validListenAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port")
	}
	if _, err := hostport.ParseListenPort(port); err != nil {
		return err
	}
	if host == "" {
		return nil
	}
	return validHost(host, strings.HasPrefix(addr, "["))
}

// splitOptionalPort splits host[:port], where an IPv6 host must be bracketed.
func splitOptionalPort(addr string) (host, port string, err error) {
	if strings.HasPrefix(addr, "[") {
		end := strings.IndexByte(addr, ']')
		if end < 0 {
			return "", "", errors.New("missing ']' after IPv6 address")
		}
		host, rest := addr[1:end], addr[end+1:]
		if rest == "" {
			return host, "", nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", "", errors.New("want [ipv6]:port")
		}
		return host, rest[1:], nil
	}
	switch strings.Count(addr, ":") {
	case 0:
		return addr, "", nil
	case 1:
		i := strings.IndexByte(addr, ':')
		return addr[:i], addr[i+1:], nil
	}
	return "", "", errors.New("IPv6 addresses need brackets, e.g. [::1]:25565")
}

// validHost accepts an IP address or a DNS name; bracketed hosts must be IPv6.
func validHost(host string, bracketed bool) error {
	if host == "" {
		return errors.New("missing host")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if bracketed && !a.Is6() {
			return errors.New("only IPv6 addresses go in brackets")
		}
		return nil
	}
	if bracketed {
		return errors.New("invalid IPv6 address")
	}
	return validDNSName(host)
}

func validDNSName(name string) error {
	name = strings.TrimSuffix(name, ".")
	if len(name) > 253 {
		return errors.New("host name longer than 253 characters")
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 {
			return errors.New("invalid host name: empty or over-long label")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return errors.New("invalid host name: character " + strconv.Quote(label[i:i+1]))
			}
		}
	}
	return nil
}
