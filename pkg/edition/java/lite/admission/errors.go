package admission

import (
	"errors"
	"fmt"
)

// Refusal causes, checked with errors.Is. Every error Admit and AdmitIntent return
// wraps exactly one of them.
var (
	// ErrDenied: the address is on the deny list, or an allow list exists and the
	// address is not on it.
	ErrDenied = errors.New("address denied")
	// ErrRateLimited: the address block used up its token bucket.
	ErrRateLimited = errors.New("rate limited")
	// ErrTooManyFromAddr: the address already holds its maximum of open connections.
	ErrTooManyFromAddr = errors.New("too many open connections from this address")
	// ErrBusy: the proxy holds its maximum of open connections.
	ErrBusy = errors.New("too many open connections")
)

// The wrapped forms are built once: under a flood, refusing is the hot path and must
// not allocate.
var (
	errDenyList   = fmt.Errorf("deny list: %w", ErrDenied)
	errNotAllowed = fmt.Errorf("not on the allow list: %w", ErrDenied)
	errConnRate   = fmt.Errorf("connections quota: %w", ErrRateLimited)
	errStatusRate = fmt.Errorf("status quota: %w", ErrRateLimited)
	errLoginRate  = fmt.Errorf("logins quota: %w", ErrRateLimited)
	errPerAddrCap = fmt.Errorf("per-address cap: %w", ErrTooManyFromAddr)
	errGlobalCap  = fmt.Errorf("global cap: %w", ErrBusy)
	errNoIntent   = errors.New("admission: unknown intent")
)
