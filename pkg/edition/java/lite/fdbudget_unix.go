//go:build unix

package lite

import "syscall"

// fdLimitNow is the soft open-files limit in force now.
func fdLimitNow() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	return uint64(r.Cur), nil
}
