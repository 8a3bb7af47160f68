//go:build unix

package mctest

import (
	"net"
	"strconv"
	"syscall"
	"time"
)

// blackhole is a listener with backlog 0 whose accept queue is filled by connects that
// are never accepted; the kernel then drops further SYNs. The first probe dial that
// times out proves it. closeFn releases the socket and the probes.
func blackhole() (addr string, closeFn func(), err error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return "", nil, err
	}
	var probes []net.Conn
	closeFn = func() {
		for _, c := range probes {
			_ = c.Close()
		}
		_ = syscall.Close(fd)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		closeFn()
		return "", nil, err
	}
	if err := syscall.Listen(fd, 0); err != nil {
		closeFn()
		return "", nil, err
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		closeFn()
		return "", nil, err
	}
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	for range 8 {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return addr, closeFn, nil
		}
		probes = append(probes, c)
	}
	closeFn()
	return "", nil, errQueueNotFull
}
