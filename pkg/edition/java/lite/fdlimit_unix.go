//go:build unix

package lite

import "syscall"

// fdLimit returns the process's soft and hard open-files limits. Raising them is the
// program's decision (cmd/gate raises the soft limit to the hard one at start), not
// the proxy instance's.
func fdLimit() (soft, hard uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, err
	}
	return uint64(r.Cur), uint64(r.Max), nil
}
