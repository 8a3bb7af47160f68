//go:build !unix

package lite

import "errors"

// fdLimitNow: no RLIMIT_NOFILE here, so no open-files cap.
func fdLimitNow() (uint64, error) { return 0, errors.New("no RLIMIT_NOFILE on this platform") }
