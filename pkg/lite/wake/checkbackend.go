package wake

import (
	"errors"
	"net"
	"strings"

	"go.minekube.com/gate/pkg/lite/hostport"
)

// CheckBackend reports whether addr, as an engine named it (a webhook's
// reply, a command's output), can be a Result.Backend: host:port with a
// non-empty host and a port 1-65535. It resolves nothing.
func CheckBackend(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "" || strings.ContainsAny(host, " \t/") {
		return errors.New("want host:port")
	}
	if _, err := hostport.ParsePort(port); err != nil {
		return errors.New("port is not 1-65535")
	}
	return nil
}
