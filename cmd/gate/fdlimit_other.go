//go:build !unix

package main

import "errors"

// raiseFDLimit has no open-files limit to raise here.
func raiseFDLimit() (before, after uint64, err error) {
	return 0, 0, errors.New("no RLIMIT_NOFILE on this platform")
}
