//go:build unix

package main

import "syscall"

// raiseFDLimit sets the soft RLIMIT_NOFILE to the hard limit: every player costs two
// descriptors, and how many the process may hold is the program's decision, made
// once at start (the Go runtime does the same on most Unixes; this covers the rest
// and says so). It returns the soft limit before and after.
func raiseFDLimit() (before, after uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, err
	}
	before = uint64(r.Cur)
	if r.Cur < r.Max {
		r.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
			return before, before, err
		}
	}
	return before, uint64(r.Cur), nil
}
