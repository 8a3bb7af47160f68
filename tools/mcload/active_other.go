//go:build !linux

package main

import (
	"context"
	"errors"
)

// active needs epoll to drive thousands of sockets from a few goroutines.
func active(context.Context, target, activeOptions) (*activeResult, error) {
	return nil, errors.New("active: Linux only")
}
