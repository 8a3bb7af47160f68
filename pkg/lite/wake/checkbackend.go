package wake

import (
	"errors"
	"net"
	"strconv"
	"strings"
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
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return errors.New("port is not 1-65535")
	}
	return nil
}
