//go:build !unix

package admission

import "errors"

// FDLimit: no RLIMIT_NOFILE here, so no open-files cap.
func FDLimit() (uint64, error) { return 0, errors.New("no RLIMIT_NOFILE on this platform") }
