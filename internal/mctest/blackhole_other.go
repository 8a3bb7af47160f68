//go:build !unix

package mctest

import "errors"

func blackhole() (string, func(), error) {
	return "", nil, errors.New("black hole needs a unix socket API")
}
