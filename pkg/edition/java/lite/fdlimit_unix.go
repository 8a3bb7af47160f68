//go:build unix

package lite

import "syscall"

// raiseFDLimit sets the soft RLIMIT_NOFILE to the hard limit and returns the soft limit
// before and after, and the hard limit.
func raiseFDLimit() (before, soft, hard uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, 0, err
	}
	before = uint64(r.Cur)
	if r.Cur < r.Max {
		r.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
			return before, before, uint64(r.Max), nil // keep the old limit; the warning still applies
		}
	}
	return before, uint64(r.Cur), uint64(r.Max), nil
}
