package wake

import "context"

// Local returns the Holders of a proxy that runs alone. TODO.
func Local() Holders { return &local{} }

type local struct{}

func (l *local) Hold(ctx context.Context, key string, sessions int) error { return nil }
func (l *local) Woke(ctx context.Context, key string) error               { return nil }
func (l *local) ClaimSleep(ctx context.Context, key string) (bool, error) { return true, nil }
