//go:build !unix

package lite

import "errors"

// fdLimit has no open-files limit to report here.
func fdLimit() (soft, hard uint64, err error) {
	return 0, 0, errors.New("no RLIMIT_NOFILE on this platform")
}
