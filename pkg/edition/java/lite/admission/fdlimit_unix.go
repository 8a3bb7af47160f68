//go:build unix

package admission

import "syscall"

// FDLimit is the soft open-files limit in force now.
func FDLimit() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	return uint64(r.Cur), nil
}
