//go:build !unix

package lite

import "errors"

// raiseFDLimit has no open-files limit to raise here.
func raiseFDLimit() (before, soft, hard uint64, err error) {
	return 0, 0, 0, errors.New("no RLIMIT_NOFILE on this platform")
}
